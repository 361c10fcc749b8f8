package oidcprovider

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TokenResult is a token endpoint's answer, success or error.
type TokenResult struct {
	Status           int
	Header           http.Header
	Body             []byte
	AccessToken      string `json:"access_token"`
	TokenType        string `json:"token_type"`
	IssuedTokenType  string `json:"issued_token_type"`
	Scope            string `json:"scope"`
	ExpiresIn        int64  `json:"expires_in"`
	Error            string `json:"error"`
	ErrorDescription string `json:"error_description"`
}

// PostToken sends form to the token endpoint as the client clientID, using HTTP Basic
// authentication when secret is non-empty (otherwise the form must authenticate, e.g. with
// client_secret or client_assertion). It fails the test only when no answer arrives.
func (p *Provider) PostToken(t testing.TB, form url.Values, clientID, secret string) TokenResult {
	t.Helper()
	return p.postToken(t, form, clientID, secret, nil)
}

func (p *Provider) postToken(t testing.TB, form url.Values, clientID, secret string, header http.Header) TokenResult {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, p.TokenEndpoint, strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatalf("oidcprovider: %v", err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if secret != "" {
		// RFC 6749 §2.3.1: both parts are form-encoded before Basic encoding.
		req.SetBasicAuth(url.QueryEscape(clientID), url.QueryEscape(secret))
	}
	resp, err := p.client.Do(req)
	if err != nil {
		t.Fatalf("oidcprovider: token request: %v", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("oidcprovider: token response: %v", err)
	}
	res := TokenResult{Status: resp.StatusCode, Header: resp.Header, Body: body}
	if len(body) > 0 {
		if err := json.Unmarshal(body, &res); err != nil {
			t.Fatalf("oidcprovider: token response (%s) is not JSON: %q", resp.Status, body)
		}
	}
	return res
}

// Token performs a client_credentials grant with the built-in default client and returns a
// JWT access token (RFC 9068 style, signed with the provider's current key) for p.Resource
// carrying the given space-separated scopes ("" for none).
func (p *Provider) Token(t testing.TB, scope string) string {
	t.Helper()
	return p.TokenFor(t, "", scope)
}

// TokenFor is Token for another resource (audience); "" means p.Resource.
func (p *Provider) TokenFor(t testing.TB, resource, scope string) string {
	t.Helper()
	form := url.Values{"grant_type": {GrantClientCredentials}}
	if scope != "" {
		form.Set("scope", scope)
	}
	if resource != "" {
		form.Set("resource", resource)
	}
	return p.mustToken(t, form)
}

// Exchange performs an RFC 8693 token exchange with the default client: subjectToken (an
// access token of this provider) for a JWT access token for audience ("" means p.Resource)
// with the subject's sub and the given scope ("" keeps the subject token's scope).
func (p *Provider) Exchange(t testing.TB, subjectToken, audience, scope string) string {
	t.Helper()
	form := url.Values{
		"grant_type":         {GrantTokenExchange},
		"subject_token":      {subjectToken},
		"subject_token_type": {TokenTypeAccessToken},
	}
	if audience != "" {
		form.Set("audience", audience)
	}
	if scope != "" {
		form.Set("scope", scope)
	}
	return p.mustToken(t, form)
}

// LoginToken is Token carrying the user-authentication context a client-credentials grant has
// none of: `acr` (left out when "") and an `auth_time` age ago by the provider's clock. The
// provider's JWT customizer writes them from test-only request headers; everything else about
// the token (signing, serialization, NumericDate) is the provider's own.
func (p *Provider) LoginToken(t testing.TB, scope, acr string, age time.Duration) string {
	t.Helper()
	form := url.Values{"grant_type": {GrantClientCredentials}}
	if scope != "" {
		form.Set("scope", scope)
	}
	header := http.Header{"X-Svc-Test-Auth-Age": {strconv.FormatInt(int64(age/time.Second), 10)}}
	if acr != "" {
		header.Set("X-Svc-Test-Acr", acr)
	}
	return p.mustTokenWith(t, form, header)
}

func (p *Provider) mustToken(t testing.TB, form url.Values) string {
	t.Helper()
	return p.mustTokenWith(t, form, nil)
}

func (p *Provider) mustTokenWith(t testing.TB, form url.Values, header http.Header) string {
	t.Helper()
	res := p.postToken(t, form, p.ClientID, p.ClientSecret, header)
	if res.Status != http.StatusOK || res.AccessToken == "" {
		t.Fatalf("oidcprovider: %s grant answered %d: %s", form.Get("grant_type"), res.Status, res.Body)
	}
	return res.AccessToken
}
