package oauthclient_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/svckit/svc/modules/oauthclient"
)

// Issue 22 item 4: extra parameters reach every token request, from code
// and from SVC_..._<NAME>_PARAMS; code replaces the environment's value of
// the same name.
func TestTokenParamsReachTheTokenRequest(t *testing.T) {
	t.Setenv("SVC_CLIENTCREDENTIALS_GRAPH_PARAMS", "tenant=env-tenant&prompt=none&login_hint=a%26b")
	s := newTokenServer(t)
	c := newClient(t, s, newClock())
	p, err := oauthclient.ClientCredentials("graph", oauthclient.WithClient(c),
		oauthclient.TokenParam("tenant", "code-tenant"), oauthclient.TokenParam("claims", "a", "b"))
	if err != nil {
		t.Fatal(err)
	}
	mustToken(t, p)
	f := s.form(0)
	for name, want := range map[string][]string{
		"tenant":     {"code-tenant"},
		"prompt":     {"none"},
		"login_hint": {"a&b"},
		"claims":     {"a", "b"},
		"grant_type": {"client_credentials"},
	} {
		if !reflect.DeepEqual(f[name], want) {
			t.Errorf("%s = %q, want %q", name, f[name], want)
		}
	}
}

// An exchange's cache is keyed by what the request asks for, extra
// parameters included, and the parameters ride on every exchange.
func TestTokenParamsOnAnExchange(t *testing.T) {
	s := newTokenServer(t)
	c := newClient(t, s, newClock())
	caller := callerJWT(map[string]any{"sub": "alice", "exp": time.Now().Add(time.Hour).Unix()})
	p := newExchange(t, c, "orders", oauthclient.TokenParam("tenant", "t1"))
	exchangeFor(t, p, caller)
	if got := s.form(0).Get("tenant"); got != "t1" {
		t.Fatalf("tenant = %q", got)
	}
}

func TestTokenParamRefusesWhatSvcSets(t *testing.T) {
	for _, tc := range []struct{ name, wantIn string }{
		{"", "empty"},
		{"grant_type", "grant_type"},
		{"scope", "oauthclient.Scopes"},
		{"Audience", "oauthclient.Audience"},
		{"resource", "oauthclient.Resource"},
		{"client_secret", "oauthclient.ClientSecret"},
		{"client_assertion", "oauthclient.PrivateKey"},
		{"subject_token", "TokenFor"},
		{"actor_token", "actor"},
	} {
		_, err := oauthclient.ClientCredentials("api", oauthclient.WithoutEnv(), oauthclient.TokenParam(tc.name, "x"))
		var ce *oauthclient.ConfigError
		if !errors.As(err, &ce) || ce.Setting != "oauthclient.TokenParam" || !strings.Contains(err.Error(), tc.wantIn) {
			t.Errorf("TokenParam(%q): err = %v, want a ConfigError naming %q", tc.name, err, tc.wantIn)
		}
	}
}

func TestTokenParamsFromTheEnvironmentAreChecked(t *testing.T) {
	for _, tc := range []struct{ value, wantIn string }{
		{"scope=admin", "oauthclient.Scopes"},
		{"tenant=a&client_id=evil", "oauthclient.ClientID"},
		{"tenant=%zz", "URL query string"},
	} {
		t.Run(tc.value, func(t *testing.T) {
			t.Setenv("SVC_TOKENEXCHANGE_LEDGER_PARAMS", tc.value)
			_, err := oauthclient.TokenExchange("ledger")
			var ce *oauthclient.ConfigError
			if !errors.As(err, &ce) || ce.Setting != "SVC_TOKENEXCHANGE_LEDGER_PARAMS" || !strings.Contains(err.Error(), tc.wantIn) {
				t.Fatalf("err = %v, want a ConfigError on SVC_TOKENEXCHANGE_LEDGER_PARAMS naming %q", err, tc.wantIn)
			}
			if strings.Contains(err.Error(), "evil") {
				t.Fatalf("the error repeats the setting's value: %v", err)
			}
		})
	}
}
