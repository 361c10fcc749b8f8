package oauthenv

import (
	"strings"
	"testing"

	"github.com/caarlos0/env/v11"
)

func keys(t *testing.T, v any, prefix string) string {
	t.Helper()
	params, err := env.GetFieldParamsWithOptions(v, env.Options{Prefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range params {
		out = append(out, p.Key)
	}
	return strings.Join(out, " ")
}

func TestVariablesAreTheOnesTheREADMENames(t *testing.T) {
	got := keys(t, &Client{}, ClientPrefix)
	for _, v := range []string{"SVC_OAUTHCLIENT_ISSUER", "SVC_OAUTHCLIENT_CLIENT_SECRET_FILE", "SVC_OAUTHCLIENT_AUTH_METHOD", "SVC_OAUTHCLIENT_TLS_CERT_FILE", "SVC_OAUTHCLIENT_TLS_KEY_FILE"} {
		if !strings.Contains(got, v) {
			t.Errorf("client variables = %s, want %s", got, v)
		}
	}
	for _, tc := range []struct {
		name     string
		exchange bool
		want     string
	}{
		{"price-list", false, "SVC_CLIENTCREDENTIALS_PRICE_LIST_AUDIENCE SVC_CLIENTCREDENTIALS_PRICE_LIST_RESOURCE SVC_CLIENTCREDENTIALS_PRICE_LIST_SCOPES SVC_CLIENTCREDENTIALS_PRICE_LIST_PARAMS SVC_CLIENTCREDENTIALS_PRICE_LIST_RESILIENCE SVC_CLIENTCREDENTIALS_PRICE_LIST_RESILIENCE_ATTEMPT_TIMEOUT"},
		{"ledger", true, "SVC_TOKENEXCHANGE_LEDGER_AUDIENCE SVC_TOKENEXCHANGE_LEDGER_RESOURCE SVC_TOKENEXCHANGE_LEDGER_SCOPES SVC_TOKENEXCHANGE_LEDGER_PARAMS SVC_TOKENEXCHANGE_LEDGER_RESILIENCE SVC_TOKENEXCHANGE_LEDGER_RESILIENCE_ATTEMPT_TIMEOUT"},
	} {
		if got := keys(t, &Pattern{}, PatternPrefix(tc.name, tc.exchange)); got != tc.want {
			t.Errorf("pattern %q (exchange %v) variables = %s, want %s", tc.name, tc.exchange, got, tc.want)
		}
	}
}

func TestPatternNamesBecomeVariableNames(t *testing.T) {
	for in, want := range map[string]string{"billing": "BILLING", "billing-api.v2": "BILLING_API_V2", "a_b": "A_B"} {
		if got := envName(in); got != want {
			t.Errorf("envName(%q) = %q, want %q", in, got, want)
		}
	}
}
