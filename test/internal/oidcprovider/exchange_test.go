package oidcprovider

import (
	"net/http"
	"net/url"
	"testing"
)

func TestTokenExchange(t *testing.T) {
	t.Parallel()
	p := Start(t, Options{Clients: []Client{{ID: "alice-svc", Secret: "alice-secret"}}})
	subject := p.PostToken(t, url.Values{"grant_type": {GrantClientCredentials}, "scope": {"read write"}}, "alice-svc", "alice-secret")
	if subject.Status != http.StatusOK {
		t.Fatalf("subject token: %d %s", subject.Status, subject.Body)
	}
	actor := p.Token(t, "read")
	forged := newKeyClient(t, "forger").assertion(t, "at+jwt", DefaultResource, func(c map[string]any) { c["iss"] = p.Issuer })

	exchange := func(extra url.Values) url.Values {
		form := url.Values{
			"grant_type":         {GrantTokenExchange},
			"subject_token":      {subject.AccessToken},
			"subject_token_type": {TokenTypeAccessToken},
		}
		for k, v := range extra {
			form[k] = v
		}
		return form
	}
	cases := []struct {
		name               string
		form               url.Values
		wantAud, wantScope string
		wantAct            string
		wantStatus         int
		wantErr            string
	}{
		{"audience and narrower scope", exchange(url.Values{"audience": {"https://down.test"}, "scope": {"read"}}), "https://down.test", "read", "", 200, ""},
		{"resource, scope kept", exchange(url.Values{"resource": {"https://down.test"}}), "https://down.test", "read write", "", 200, ""},
		{"default resource, jwt token type", exchange(url.Values{"subject_token_type": {TokenTypeJWT}, "requested_token_type": {TokenTypeAccessToken}}), DefaultResource, "read write", "", 200, ""},
		{"actor token", exchange(url.Values{"actor_token": {actor}, "actor_token_type": {TokenTypeAccessToken}}), DefaultResource, "read write", DefaultClientID, 200, ""},
		{"scope beyond the subject's", exchange(url.Values{"scope": {"read admin"}}), "", "", "", 400, "invalid_scope"},
		{"subject token not a JWT", exchange(url.Values{"subject_token": {"opaque"}}), "", "", "", 400, "invalid_grant"},
		{"subject token signed by a stranger", exchange(url.Values{"subject_token": {forged}}), "", "", "", 400, "invalid_grant"},
		{"missing subject_token", exchange(url.Values{"subject_token": nil}), "", "", "", 400, "invalid_request"},
		{"missing subject_token_type", exchange(url.Values{"subject_token_type": nil}), "", "", "", 400, "invalid_request"},
		{"unsupported requested_token_type", exchange(url.Values{"requested_token_type": {"urn:ietf:params:oauth:token-type:refresh_token"}}), "", "", "", 400, "invalid_request"},
		{"actor token without type", exchange(url.Values{"actor_token": {actor}}), "", "", "", 400, "invalid_request"},
		{"relative audience", exchange(url.Values{"audience": {"down"}}), "", "", "", 400, "invalid_target"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := p.PostToken(t, tc.form, DefaultClientID, DefaultClientSecret)
			if tc.wantErr != "" {
				wantRefusal(t, res, tc.wantStatus, tc.wantErr)
				return
			}
			if res.Status != http.StatusOK || res.IssuedTokenType != TokenTypeAccessToken || res.TokenType != "Bearer" ||
				res.ExpiresIn != 600 || res.Scope != tc.wantScope {
				t.Fatalf("response %d %s", res.Status, res.Body)
			}
			at := verify(t, p, res.AccessToken)
			if at.str("sub") != "alice-svc" || at.str("client_id") != DefaultClientID || at.str("aud") != tc.wantAud ||
				at.str("scope") != tc.wantScope || at.str("iss") != p.Issuer || at.Typ != "at+jwt" {
				t.Errorf("claims %v typ %q", at.Claims, at.Typ)
			}
			act, _ := at.Claims["act"].(map[string]any)
			if got, _ := act["sub"].(string); got != tc.wantAct {
				t.Errorf("act %v, want sub %q", at.Claims["act"], tc.wantAct)
			}
		})
	}

	if aud := verify(t, p, p.Exchange(t, subject.AccessToken, "https://down.test", "write")).str("aud"); aud != "https://down.test" {
		t.Errorf("Exchange: aud %q", aud)
	}
}
