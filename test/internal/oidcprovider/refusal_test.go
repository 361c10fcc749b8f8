package oidcprovider

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestClientAuthRefusals pins the answers oidc-provider gives to bad client authentication
// and disallowed requests; svc's outbound client maps them to its error kinds.
func TestClientAuthRefusals(t *testing.T) {
	t.Parallel()
	kc := newKeyClient(t, "key-client")
	stranger := newKeyClient(t, "key-client") // same ID, key not registered
	p := Start(t, Options{Clients: []Client{
		{ID: "post-client", Secret: "post-secret", AuthMethod: "client_secret_post"},
		{ID: "reader", Secret: "reader-secret", Scope: "read"},
		{ID: "no-exchange", Secret: "s", GrantTypes: []string{GrantClientCredentials}},
		kc.registration(),
	}})
	cc := url.Values{"grant_type": {GrantClientCredentials}}
	reused := kc.assertion(t, "client-authentication+jwt", p.Issuer, nil)
	if res := p.PostToken(t, assertionForm(reused, nil), "", ""); res.Status != http.StatusOK {
		t.Fatalf("first use of the assertion: %d %s", res.Status, res.Body)
	}

	cases := []struct {
		name       string
		send       func() TokenResult
		status     int
		code       string
		wwwAuthRe  string // prefix of WWW-Authenticate, "" for none
		descriptor string // substring of error_description
	}{
		{"basic wrong secret", func() TokenResult {
			return p.PostToken(t, cc, DefaultClientID, "wrong")
		}, 401, "invalid_client", "Basic ", "client authentication failed"},
		{"basic unknown client", func() TokenResult {
			return p.PostToken(t, cc, "nobody", "x")
		}, 401, "invalid_client", "Basic ", "client authentication failed"},
		{"post wrong secret", func() TokenResult {
			return p.PostToken(t, url.Values{"grant_type": cc["grant_type"], "client_id": {"post-client"}, "client_secret": {"wrong"}}, "", "")
		}, 401, "invalid_client", "", "client authentication failed"},
		{"basic and post together", func() TokenResult {
			return p.PostToken(t, url.Values{"grant_type": cc["grant_type"], "client_id": {DefaultClientID}, "client_secret": {DefaultClientSecret}}, DefaultClientID, DefaultClientSecret)
		}, 400, "invalid_request", "", "client authentication must only be provided using one mechanism"},
		{"secret client sends an assertion", func() TokenResult {
			a := kc.assertion(t, "", p.Issuer, func(c map[string]any) { c["iss"], c["sub"] = "post-client", "post-client" })
			return p.PostToken(t, assertionForm(a, nil), "", "")
		}, 401, "invalid_client", "", "client authentication failed"},
		{"assertion without client_assertion_type", func() TokenResult {
			form := assertionForm(kc.assertion(t, "", p.Issuer, nil), nil)
			form.Del("client_assertion_type")
			return p.PostToken(t, form, "", "")
		}, 400, "invalid_request", "", "client_assertion_type must be provided"},
		{"no client authentication", func() TokenResult {
			return p.PostToken(t, cc, "", "")
		}, 400, "invalid_request", "", "no client authentication mechanism provided"},
		{"assertion aud elsewhere", func() TokenResult {
			return p.PostToken(t, assertionForm(kc.assertion(t, "", "https://elsewhere.test", nil), nil), "", "")
		}, 401, "invalid_client", "", "client authentication failed"},
		{"assertion reused jti", func() TokenResult {
			return p.PostToken(t, assertionForm(reused, nil), "", "")
		}, 401, "invalid_client", "", "client authentication failed"},
		{"assertion without jti", func() TokenResult {
			a := kc.assertion(t, "", p.Issuer, func(c map[string]any) { delete(c, "jti") })
			return p.PostToken(t, assertionForm(a, nil), "", "")
		}, 401, "invalid_client", "", "client authentication failed"},
		{"assertion without sub", func() TokenResult {
			a := kc.assertion(t, "", p.Issuer, func(c map[string]any) { delete(c, "sub") })
			return p.PostToken(t, assertionForm(a, nil), "", "")
		}, 401, "invalid_client", "", "client authentication failed"},
		{"assertion iss is not the client", func() TokenResult {
			a := kc.assertion(t, "", p.Issuer, func(c map[string]any) { c["iss"] = "someone-else" })
			return p.PostToken(t, assertionForm(a, nil), "", "")
		}, 401, "invalid_client", "", "client authentication failed"},
		{"assertion expired", func() TokenResult {
			a := kc.assertion(t, "", p.Issuer, func(c map[string]any) { c["exp"] = c["iat"].(int64) - 60 })
			return p.PostToken(t, assertionForm(a, nil), "", "")
		}, 401, "invalid_client", "", "client authentication failed"},
		{"assertion by an unregistered key", func() TokenResult {
			return p.PostToken(t, assertionForm(stranger.assertion(t, "", p.Issuer, nil), nil), "", "")
		}, 401, "invalid_client", "", "client authentication failed"},
		{"scope outside the client's allow list", func() TokenResult {
			return p.PostToken(t, url.Values{"grant_type": cc["grant_type"], "scope": {"read admin"}}, "reader", "reader-secret")
		}, 400, "invalid_scope", "", "requested scope is not allowed"},
		{"grant not registered for the client", func() TokenResult {
			return p.PostToken(t, url.Values{"grant_type": {GrantTokenExchange}, "subject_token": {"x"}, "subject_token_type": {TokenTypeAccessToken}}, "no-exchange", "s")
		}, 400, "invalid_request", "", "requested grant type is not allowed for this client"},
		{"unknown grant", func() TokenResult {
			return p.PostToken(t, url.Values{"grant_type": {"password"}}, DefaultClientID, DefaultClientSecret)
		}, 400, "unsupported_grant_type", "", "unsupported grant_type requested"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := tc.send()
			wantRefusal(t, res, tc.status, tc.code)
			if got := res.Header.Get("WWW-Authenticate"); tc.wwwAuthRe == "" && got != "" || !strings.HasPrefix(got, tc.wwwAuthRe) {
				t.Errorf("WWW-Authenticate %q, want prefix %q", got, tc.wwwAuthRe)
			}
			if !strings.Contains(res.ErrorDescription, tc.descriptor) {
				t.Errorf("error_description %q, want it to contain %q", res.ErrorDescription, tc.descriptor)
			}
		})
	}
}
