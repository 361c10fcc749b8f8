package fxsvc

import "testing"

func TestEditDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"SVC_AUTHN_ISSUER", "SVC_AUTHN_ISSUER", 0},
		{"SVC_AUTHN_ISUER", "SVC_AUTHN_ISSUER", 1},         // a letter dropped
		{"SVC_HTPT_ADDR", "SVC_HTTP_ADDR", 1},              // two swapped
		{"SVC_HTTP_ADR", "SVC_HTTP_ADDR", 1},               // at the end
		{"SVC_REDIS_URLS", "SVC_REDIS_URL", 1},             // one added
		{"SVC_METRICS_EXPROTR", "SVC_METRICS_EXPORTER", 2}, // a swap and a drop
		{"SVC_ORDERS_REGION", "SVC_HTTP_ADDR", 3},          // at the limit
		{"SVC_X", "SVC_HTTP_READ_TIMEOUT", 3},              // lengths alone rule it out
	} {
		if got := editDistance(c.a, c.b, 3); got != c.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

func TestMisspeltEnvIgnoresOtherPrefixesAndKnownNames(t *testing.T) {
	known := map[string]bool{"SVC_HTTP_ADDR": true, "SVC_HTTP_ADDR2": true}
	got := misspeltEnv([]string{"SVC_HTTP_ADDR=x", "SVC_HTTP_ADR=x", "HTTP_ADDR=x", "XSVC_HTTP_ADR=x", "SVC_HTTP_ADDR3=x", "SVC_HTTP_ADDR4="}, known)
	if len(got) != 2 || got[0] != (misspelt{"SVC_HTTP_ADDR3", "SVC_HTTP_ADDR"}) || got[1] != (misspelt{"SVC_HTTP_ADR", "SVC_HTTP_ADDR"}) {
		t.Fatalf("got %v", got)
	}
}

// Issue 37 item 13: SVC_HTTP_TLS=maybe (not a variable: the stem of the
// SVC_HTTP_TLS_… group) drew no warning, being far from every known name;
// so did an unknown name in a component's namespace.
func TestMisspeltEnvNamesAGroupAndAComponentsNamespace(t *testing.T) {
	known := map[string]bool{"SVC_HTTP_TLS_CERT_FILE": true, "SVC_HTTP_TLS_KEY_FILE": true, "SVC_HTTP_ADDR": true,
		"SVC_HTTP_READ_TIMEOUT": true, "SVC_REDIS_URL": true}
	got := misspeltEnv([]string{"SVC_HTTP_TLS=maybe", "SVC_HTTP_READTIMEOUT_SECONDS=5", "SVC_ORDERS_LIMIT=3", "SVC_X=1", "SVC_REDIS=redis://x"}, known)
	want := []misspelt{
		{"SVC_HTTP_READTIMEOUT_SECONDS", "SVC_HTTP_READ_TIMEOUT"},
		{"SVC_HTTP_TLS", "SVC_HTTP_TLS_*"},
		{"SVC_REDIS", "SVC_REDIS_*"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
}
