package devissuer_test

import (
	"crypto/sha256"
	"encoding/base64"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/svckit/svc/devissuer"
)

// noRedirect is a client that shows the redirect instead of following it.
var noRedirect = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// The code flow with PKCE for a public client: the login page asks for
// nothing (a pre-filled form); with sub in the query the redirect comes
// at once, and the code with its verifier gives the user's token, with
// the acr chosen, and a refresh token.
func TestAuthorizationCodeWithPKCE(t *testing.T) {
	t.Parallel()
	iss := start(t, devissuer.Options{})
	_ = iss.Register(devissuer.Client{ID: "cli"}) // public: no credentials
	verifier := strings.Repeat("v", 50)
	sum := sha256.Sum256([]byte(verifier))
	q := url.Values{"response_type": {"code"}, "client_id": {"cli"}, "redirect_uri": {"http://127.0.0.1:8765/cb"}, "state": {"xyz"},
		"code_challenge": {base64.RawURLEncoding.EncodeToString(sum[:])}, "code_challenge_method": {"S256"}, "scope": {"read"}}

	resp, err := http.Get(iss.URL + "/authorize?" + q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(page), `<form method="post">`) || !strings.Contains(string(page), `name="code_challenge"`) {
		t.Fatalf("login page: %d %s", resp.StatusCode, page)
	}

	// The form, sent as the page sends it, signs in too.
	posted := url.Values{"login": {"1"}, "sub": {"bob"}, "amr": {"pwd"}}
	for k, v := range q {
		posted[k] = v
	}
	resp, err = noRedirect.PostForm(iss.URL+"/authorize", posted)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if back, _ := url.Parse(resp.Header.Get("Location")); resp.StatusCode != http.StatusSeeOther || back.Query().Get("code") == "" {
		t.Fatalf("the form: %d %s", resp.StatusCode, back)
	}

	q.Set("sub", "alice")
	q.Set("acr", "mfa")
	resp, err = noRedirect.Get(iss.URL + "/authorize?" + q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	back, _ := url.Parse(resp.Header.Get("Location"))
	code := back.Query().Get("code")
	if resp.StatusCode != http.StatusSeeOther || back.Host != "127.0.0.1:8765" || code == "" || back.Query().Get("state") != "xyz" || back.Query().Get("iss") != iss.URL {
		t.Fatalf("redirect: %d %s", resp.StatusCode, back)
	}
	redeem := url.Values{"grant_type": {"authorization_code"}, "client_id": {"cli"}, "code": {code}, "redirect_uri": {"http://127.0.0.1:8765/cb"}, "code_verifier": {"wrong" + verifier}}
	if status, _, body := send(t, iss.URL+"/token", redeem, nil); status != 400 || body["error"] != "invalid_grant" {
		t.Fatalf("a wrong verifier: %d %v", status, body)
	}
	// The wrong verifier spent the code: a code is tried once.
	resp, _ = noRedirect.Get(iss.URL + "/authorize?" + q.Encode())
	resp.Body.Close()
	back, _ = url.Parse(resp.Header.Get("Location"))
	redeem.Set("code", back.Query().Get("code"))
	redeem.Set("code_verifier", verifier)
	status, _, body := send(t, iss.URL+"/token", redeem, nil)
	if status != 200 || body["refresh_token"] == nil {
		t.Fatalf("redeem: %d %v", status, body)
	}
	if c := claimsOf(t, body["access_token"].(string)); c["sub"] != "alice" || c["acr"] != "mfa" || c["scope"] != "read" || c["client_id"] != "cli" || c["auth_time"] == nil || c["sid"] == nil {
		t.Fatalf("claims %v", c)
	}
	if status, _, body := send(t, iss.URL+"/token", url.Values{"grant_type": {"client_credentials"}, "client_id": {"cli"}}, nil); status != 401 || body["error"] != "invalid_client" {
		t.Fatalf("a public client's client_credentials: %d %v", status, body)
	}

	// Refused before the redirect is trusted: shown, not redirected.
	bad := url.Values{}
	for k, v := range q {
		bad[k] = v
	}
	bad.Set("redirect_uri", "https://evil.example/cb")
	if resp, _ := noRedirect.Get(iss.URL + "/authorize?" + bad.Encode()); resp.StatusCode != 400 || resp.Header.Get("Location") != "" {
		t.Fatalf("a redirect elsewhere: %d", resp.StatusCode)
	}
	// Refused after: redirected with the error.
	bad.Set("redirect_uri", "http://127.0.0.1:8765/cb")
	bad.Del("code_challenge")
	resp, _ = noRedirect.Get(iss.URL + "/authorize?" + bad.Encode())
	back, _ = url.Parse(resp.Header.Get("Location"))
	if resp.StatusCode != http.StatusSeeOther || back.Query().Get("error") != "invalid_request" || back.Query().Get("state") != "xyz" {
		t.Fatalf("no PKCE: %d %s", resp.StatusCode, back)
	}
}
