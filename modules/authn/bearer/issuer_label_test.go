package bearer

import (
	"crypto"
	"strings"
	"testing"
)

// Issue 20: the issuer's label is its host and path as configured, never
// a URL (no scheme, userinfo, query or fragment) and never a tenant id.
func TestIssuerLabelIsHostAndPath(t *testing.T) {
	for issuer, want := range map[string]string{
		"https://login.example.com":                          "login.example.com",
		"https://login.example.com/":                         "login.example.com/",
		"https://idp.example.com/realms/orders":              "idp.example.com/realms/orders",
		"https://login.microsoftonline.com/{tenantid}/v2.0":  "login.microsoftonline.com/{tenantid}/v2.0",
		"https://user:s3cret@idp.example.com/x?key=s3cret#f": "idp.example.com/x",
		"http://127.0.0.1:8080":                              "127.0.0.1:8080",
		"orders-issuer":                                      "orders-issuer",
		"urn:user:s3cret@orders?key=s3cret":                  "orders",
	} {
		if got := labelOf(issuer); got != want {
			t.Errorf("labelOf(%q) = %q, want %q", issuer, got, want)
		}
	}
}

// A template's tenants share the template's label; an iss that is none of
// the set's issuers has none.
func TestIssuerLabelOfATemplateNamesNoTenant(t *testing.T) {
	e := newEntra(t)
	k := keys(t)
	tmpl := New(e.template(), "api://orders", AnyTenant())
	plain := KeySet("https://plain.example/realm", "api://orders", []crypto.PublicKey{k.p256b.Public()})
	set := Issuers(plain, tmpl).(*issuerSet)
	wantTmpl := hostPathOf(t, e.template())
	for iss, want := range map[string]string{
		e.issuer("t1"):                     wantTmpl,
		e.issuer("6f1c-aa"):                wantTmpl,
		"https://plain.example/realm":      "plain.example/realm",
		"https://plain.example/realm/":     "",
		e.URL + "/t1/x/v2.0":               "",
		"https://stranger.example/t1/v2.0": "",
	} {
		if got := set.issuerLabel(iss); got != want {
			t.Errorf("set: label of %q = %q, want %q", iss, got, want)
		}
	}
	if got := tmpl.issuerLabel(e.issuer("t1")); got != wantTmpl {
		t.Errorf("template alone: %q, want %q", got, wantTmpl)
	}
	if got := tmpl.issuerLabel("https://stranger.example"); got != "" {
		t.Errorf("template alone, a stranger: %q", got)
	}
	// The lookup on the gate's success path allocates nothing.
	iss := e.issuer("t1")
	if n := testing.AllocsPerRun(100, func() { _ = set.issuerLabel(iss) }); n != 0 {
		t.Errorf("issuerLabel allocates %v times", n)
	}
}

func hostPathOf(t *testing.T, u string) string {
	t.Helper()
	_, rest, ok := strings.Cut(u, "://")
	if !ok {
		t.Fatalf("no scheme in %s", u)
	}
	return rest
}
