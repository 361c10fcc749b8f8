package fxsvc_test

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"go.uber.org/fx"

	"github.com/svckit/svc/fxsvc"
	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/authntest"
)

// Issue 34 item 1: SVC_AUTHN_PROFILE gives the issuer of SVC_AUTHN_ISSUER
// its provider profile: a Cognito access token (no aud; client_id and
// token_use instead) is admitted on a RequireRole route by its
// cognito:groups, and its ID token refused.
func TestProviderProfileFromTheEnvironment(t *testing.T) {
	iss := authntest.NewIssuer(t, authntest.WithAudience("1example23456789"))
	t.Setenv("SVC_AUTHN_ISSUERS", "")
	t.Setenv("SVC_AUTHN_ISSUER", iss.URL)
	t.Setenv("SVC_AUTHN_AUDIENCE", iss.Audience)
	t.Setenv("SVC_AUTHN_PROFILE", "cognito")
	r := chi.NewRouter()
	r.With(authn.RequireRole("admin")).Get("/orders", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "orders") })
	app, srv := startApp(t, fx.NopLogger, fxsvc.Errors(), fxsvc.Authn(nil), fx.Supply(r), fxsvc.Serve(fxsvc.Addr("127.0.0.1:0")))
	defer app.RequireStop()
	token := func(use string, groups ...string) string {
		return iss.Token(authntest.Audience(), authntest.Claim("aud", nil), authntest.Claim("client_id", iss.Audience),
			authntest.Claim("token_use", use), authntest.Claim("cognito:groups", groups))
	}
	url := "http://" + srv.Addr() + "/orders"
	if status, body, _ := getUntilKeysLoad(t, url, token("access", "admin")); status != http.StatusOK || body != "orders" {
		t.Fatalf("access token: %d %s", status, body)
	}
	if status, body, _ := getUntilKeysLoad(t, url, token("access", "reader")); status != http.StatusForbidden || !strings.Contains(body, "insufficient-role") {
		t.Fatalf("without the group: %d %s", status, body)
	}
	if status, body, _ := getUntilKeysLoad(t, url, token("id", "admin")); status != http.StatusUnauthorized || !strings.Contains(body, "token-type") {
		t.Fatalf("ID token: %d %s", status, body)
	}
}

// `check` (and the start line, which shows the issuers the same way) shows
// each issuer's profile mapping: SVC_AUTHN_PROFILE for SVC_AUTHN_ISSUER
// and for the SVC_AUTHN_ISSUERS entries naming none, an entry's own
// profile= otherwise.
func TestCheckShowsTheProviderProfiles(t *testing.T) {
	for _, tc := range []struct {
		name, issuer, issuers, profile, want string
	}{
		{"SVC_AUTHN_PROFILE", "https://keycloak.example.com/realms/orders", "", "keycloak",
			"trusts issuers: https://keycloak.example.com/realms/orders [profile keycloak: roles realm_access.roles resource_access.api.roles; client id azp; audience aud]\n"},
		{"SVC_AUTHN_ISSUERS entries", "", "https://cognito-idp.us-west-2.amazonaws.com/us-west-2_x 1example profile=cognito, https://okta.example.com/oauth2/default", "okta",
			"trusts issuers: https://cognito-idp.us-west-2.amazonaws.com/us-west-2_x [profile cognito: roles cognito:groups; client id client_id; audience client_id; token_use access], " +
				"https://okta.example.com/oauth2/default [profile okta: roles groups; client id cid; audience aud]\n"},
		{"generic paths", "", "https://idp.example.com profile=generic:realm_access.roles;groups", "",
			"trusts issuers: https://idp.example.com [profile generic: roles realm_access.roles groups; client id azp or client_id; audience aud]\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("SVC_AUTHN_ISSUER", tc.issuer)
			t.Setenv("SVC_AUTHN_ISSUERS", tc.issuers)
			t.Setenv("SVC_AUTHN_AUDIENCE", "api")
			t.Setenv("SVC_AUTHN_PROFILE", tc.profile)
			var out, errOut bytes.Buffer
			r := productionRouter()
			r.With(authn.RequireRole("order-admin")).Delete("/orders", nil)
			if code := fxsvc.Run([]string{"check"}, &out, &errOut, fx.Supply(r), fxsvc.Authn(nil), fxsvc.Serve()); code != 0 {
				t.Fatalf("exit %d: %s", code, errOut.String())
			}
			if !strings.Contains(errOut.String(), tc.want) {
				t.Errorf("stderr %q, want %q", errOut.String(), tc.want)
			}
			if !lineWith(out.String(), "DELETE", "/orders", "authenticated", "role=order-admin") {
				t.Errorf("the route table lacks the role: %q", out.String())
			}
		})
	}
}

// A profile the settings cannot name fails the build naming the variable
// or the entry, and what is accepted.
func TestProviderProfileFromTheEnvironmentRefused(t *testing.T) {
	for _, tc := range []struct {
		name, issuer, issuers, profile string
		want                           []string
	}{
		{"unknown SVC_AUTHN_PROFILE", "https://a.example", "", "azure", []string{`SVC_AUTHN_PROFILE="azure"`, "unknown", "keycloak", "entra", "generic:PATH"}},
		{"generic without paths", "https://a.example", "", "generic", []string{`SVC_AUTHN_PROFILE="generic"`, "names no role claim path"}},
		{"an entry's unknown profile", "", "https://a.example api, https://b.example api profile=okay", "", []string{"SVC_AUTHN_ISSUERS entry 2: profile=okay", "unknown"}},
		{"an entry's two profiles", "", "https://a.example api profile=okta profile=entra", "", []string{"SVC_AUTHN_ISSUERS entry 1 names profile= twice"}},
		{"a bad default for the entries", "", "https://a.example api", "okta:x", []string{`SVC_AUTHN_PROFILE="okta:x"`, "takes no arguments"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("SVC_AUTHN_ISSUER", tc.issuer)
			t.Setenv("SVC_AUTHN_ISSUERS", tc.issuers)
			t.Setenv("SVC_AUTHN_AUDIENCE", "api")
			t.Setenv("SVC_AUTHN_PROFILE", tc.profile)
			err := buildGate(fxsvc.Authn(nil))
			if err == nil {
				t.Fatal("the app was built")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q: %v", w, err)
				}
			}
		})
	}
}
