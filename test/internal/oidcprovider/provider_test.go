package oidcprovider

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"
)

func testDiscovery(t *testing.T, p *Provider) {
	if !strings.HasPrefix(p.Issuer, "http://127.0.0.1:") || p.Resource != DefaultResource {
		t.Fatalf("Issuer %q Resource %q", p.Issuer, p.Resource)
	}
	resp, err := http.Get(p.Issuer + "/.well-known/openid-configuration")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var doc struct {
		Issuer      string   `json:"issuer"`
		Token       string   `json:"token_endpoint"`
		JWKS        string   `json:"jwks_uri"`
		Grants      []string `json:"grant_types_supported"`
		AuthMethods []string `json:"token_endpoint_auth_methods_supported"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil {
		t.Fatal(err)
	}
	if doc.Issuer != p.Issuer || doc.Token != p.Issuer+"/token" || doc.JWKS != p.Issuer+"/jwks" {
		t.Errorf("discovery %+v", doc)
	}
	if doc.Token != p.TokenEndpoint || doc.JWKS != p.JWKSURI {
		t.Errorf("Provider endpoints %q %q, discovery %q %q", p.TokenEndpoint, p.JWKSURI, doc.Token, doc.JWKS)
	}
	for _, g := range []string{GrantClientCredentials, GrantTokenExchange} {
		if !slices.Contains(doc.Grants, g) {
			t.Errorf("grant_types_supported %v lacks %s", doc.Grants, g)
		}
	}
	for _, m := range authMethods {
		if !slices.Contains(doc.AuthMethods, m) {
			t.Errorf("token_endpoint_auth_methods_supported %v lacks %s", doc.AuthMethods, m)
		}
	}
	if n := p.DiscoveryRequests(); n != 1 {
		t.Errorf("DiscoveryRequests %d, want 1", n)
	}
}

// TestTokenClaims checks every auth method yields an RFC 9068 JWT for the resource.
func TestTokenClaims(t *testing.T) {
	t.Parallel()
	kc := newKeyClient(t, "key-client")
	p := Start(t, Options{
		AccessTokenTTL: 90 * time.Second,
		Clients: []Client{
			{ID: "post-client", Secret: "post-secret", AuthMethod: "client_secret_post", Scope: "read"},
			kc.registration(),
			{ID: "hs-client", Secret: hsSecret, AuthMethod: "client_secret_jwt"},
		},
	})

	cases := []struct {
		name, client, scope, wantScope string
		send                           func() TokenResult
	}{
		{"Token helper", DefaultClientID, "read write", "read write", func() TokenResult {
			return TokenResult{Status: 200, AccessToken: p.Token(t, "read write")}
		}},
		{"client_secret_basic", DefaultClientID, "admin", "admin", func() TokenResult {
			return p.PostToken(t, url.Values{"grant_type": {GrantClientCredentials}, "scope": {"admin"}}, DefaultClientID, DefaultClientSecret)
		}},
		{"client_secret_post", "post-client", "read", "read", func() TokenResult {
			form := url.Values{"grant_type": {GrantClientCredentials}, "scope": {"read"},
				"client_id": {"post-client"}, "client_secret": {"post-secret"}}
			return p.PostToken(t, form, "", "")
		}},
		{"client_secret_basic client may use client_secret_post", DefaultClientID, "read", "read", func() TokenResult {
			form := url.Values{"grant_type": {GrantClientCredentials}, "scope": {"read"},
				"client_id": {DefaultClientID}, "client_secret": {DefaultClientSecret}}
			return p.PostToken(t, form, "", "")
		}},
		{"private_key_jwt aud=issuer typ=client-authentication+jwt", "key-client", "read write", "read write", func() TokenResult {
			a := kc.assertion(t, "client-authentication+jwt", p.Issuer, nil)
			return p.PostToken(t, assertionForm(a, url.Values{"scope": {"read write"}}), "", "")
		}},
		{"private_key_jwt aud=token endpoint typ=JWT", "key-client", "write", "write", func() TokenResult {
			a := kc.assertion(t, "JWT", p.TokenEndpoint, nil)
			return p.PostToken(t, assertionForm(a, url.Values{"scope": {"write"}}), "", "")
		}},
		{"private_key_jwt aud=[other, issuer] no typ", "key-client", "", "", func() TokenResult {
			a := kc.assertion(t, "", []string{"https://elsewhere.test", p.Issuer}, nil)
			return p.PostToken(t, assertionForm(a, nil), "", "")
		}},
		{"client_secret_jwt HS256", "hs-client", "read", "read", func() TokenResult {
			return p.PostToken(t, assertionForm(hsAssertion(t, "hs-client", p.TokenEndpoint), url.Values{"scope": {"read"}}), "", "")
		}},
		{"scope outside the resource is dropped", DefaultClientID, "read unknown", "read", func() TokenResult {
			return p.PostToken(t, url.Values{"grant_type": {GrantClientCredentials}, "scope": {"read unknown"}}, DefaultClientID, DefaultClientSecret)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := tc.send()
			if res.Status != http.StatusOK {
				t.Fatalf("status %d: %s", res.Status, res.Body)
			}
			if res.Body != nil {
				if res.TokenType != "Bearer" || res.ExpiresIn != 90 || res.Scope != tc.wantScope {
					t.Errorf("response %s", res.Body)
				}
				var raw map[string]any
				_ = json.Unmarshal(res.Body, &raw)
				for _, absent := range []string{"refresh_token", "refresh_in", "id_token"} {
					if _, ok := raw[absent]; ok {
						t.Errorf("response has %s: %s", absent, res.Body)
					}
				}
			}
			at := verify(t, p, res.AccessToken)
			if at.Header.Algorithm != "ES256" || at.Typ != "at+jwt" || at.Header.KeyID != p.KeyID(t) {
				t.Errorf("header alg %q typ %q kid %q", at.Header.Algorithm, at.Typ, at.Header.KeyID)
			}
			if at.str("iss") != p.Issuer || at.str("aud") != p.Resource || at.str("client_id") != tc.client ||
				at.str("sub") != tc.client || at.str("scope") != tc.wantScope || at.str("jti") == "" {
				t.Errorf("claims %v", at.Claims)
			}
			if at.num("exp")-at.num("iat") != 90 {
				t.Errorf("exp-iat = %d, want 90", at.num("exp")-at.num("iat"))
			}
		})
	}
}

func TestResourceSelection(t *testing.T) {
	t.Parallel()
	p := Start(t, Options{Resources: []string{"https://other.svc.test"}})
	cases := []struct {
		name    string
		form    url.Values
		wantAud string
		wantErr string
	}{
		{"default resource", url.Values{}, DefaultResource, ""},
		{"resource=", url.Values{"resource": {"https://other.svc.test"}}, "https://other.svc.test", ""},
		{"audience=", url.Values{"audience": {"https://other.svc.test"}}, "https://other.svc.test", ""},
		{"unknown resource", url.Values{"resource": {"https://unknown.test"}}, "", "invalid_target"},
		{"relative resource", url.Values{"resource": {"api"}}, "", "invalid_target"},
		{"two resources", url.Values{"resource": {DefaultResource, "https://other.svc.test"}}, "", "invalid_target"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.form.Set("grant_type", GrantClientCredentials)
			tc.form.Set("scope", "read")
			res := p.PostToken(t, tc.form, DefaultClientID, DefaultClientSecret)
			if tc.wantErr != "" {
				wantRefusal(t, res, http.StatusBadRequest, tc.wantErr)
				return
			}
			if res.Status != http.StatusOK {
				t.Fatalf("status %d: %s", res.Status, res.Body)
			}
			if aud := verify(t, p, res.AccessToken).str("aud"); aud != tc.wantAud {
				t.Errorf("aud %q, want %q", aud, tc.wantAud)
			}
		})
	}
	if aud := verify(t, p, p.TokenFor(t, "https://other.svc.test", "read")).str("aud"); aud != "https://other.svc.test" {
		t.Errorf("TokenFor: aud %q", aud)
	}
}

func TestSigningAlgRS256AndShortTTL(t *testing.T) {
	t.Parallel()
	p := Start(t, Options{SigningAlg: "RS256", AccessTokenTTL: 1500 * time.Millisecond})
	res := p.PostToken(t, url.Values{"grant_type": {GrantClientCredentials}}, DefaultClientID, DefaultClientSecret)
	if res.Status != http.StatusOK || res.ExpiresIn != 2 || res.Scope != "" {
		t.Fatalf("response %d %s, want expires_in 2 (rounded up) and no scope", res.Status, res.Body)
	}
	at := verify(t, p, res.AccessToken)
	if at.Header.Algorithm != "RS256" || at.num("exp")-at.num("iat") != 2 {
		t.Errorf("alg %q, exp-iat %d", at.Header.Algorithm, at.num("exp")-at.num("iat"))
	}
	if _, ok := at.Claims["scope"]; ok {
		t.Errorf("token without scope has a scope claim: %v", at.Claims)
	}
}
