package interop_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/dpop"
	"github.com/svckit/svc/modules/oauthclient"
	"github.com/svckit/svc/secret"
	"github.com/svckit/svc/test/internal/oidcprovider"
)

// RFC 9449 end to end, with an authorization server nobody here wrote:
// svc's outbound client gets a DPoP-bound token from oidc-provider (which
// requires its nonce first), and calls an svc API whose gate verifies the
// token, the proof and the binding (authn.DPoP, required, with its own
// server nonce).
func TestDPoPEndToEnd(t *testing.T) {
	p := oidcprovider.Start(t, oidcprovider.Options{DPoPNonce: true})
	v := openDiscover(t, p)
	secretKey := make([]byte, 32)
	for i := range secretKey {
		secretKey[i] = byte(i + 1)
	}
	nonces, err := dpop.NewNonceSource(secretKey, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	dv, err := dpop.New(dpop.RequireNonce(nonces))
	if err != nil {
		t.Fatal(err)
	}
	g, err := authn.New(v, authn.DPoP(dv, true))
	if err != nil {
		t.Fatal(err)
	}
	h, err := g.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		_, _ = io.WriteString(w, "ok "+string(body))
	}))
	if err != nil {
		t.Fatal(err)
	}
	api := httptest.NewServer(h)
	t.Cleanup(api.Close)

	c, err := oauthclient.New(oauthclient.WithoutEnv(), oauthclient.Issuer(p.Issuer),
		oauthclient.ClientID(p.ClientID), oauthclient.ClientSecret(secret.String(p.ClientSecret)), oauthclient.DPoP(nil))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	pat, err := oauthclient.ClientCredentials("api", oauthclient.WithoutEnv(), oauthclient.WithClient(c),
		oauthclient.Resource(p.Resource), oauthclient.Scopes("read"))
	if err != nil {
		t.Fatal(err)
	}

	p.ResetCounters(t) // openDiscover asked for a bearer token
	// The first request meets both nonces: the provider's (one token
	// request more) and the API's (one API request more, the body sent
	// again).
	for i, want := range []string{"ok first", "ok second"} {
		body := strings.TrimPrefix(want, "ok ")
		req, _ := http.NewRequest(http.MethodPost, api.URL+"/orders?x=1", strings.NewReader(body))
		resp, err := pat.Client().Do(req)
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || string(got) != want {
			t.Fatalf("request %d: status %d, body %q, challenge %q", i, resp.StatusCode, got, resp.Header.Get("WWW-Authenticate"))
		}
	}
	log := p.TokenRequestLog(t)
	if len(log) != 2 || !log[0].DPoP || !log[1].DPoP || log[0].Status != 400 || log[0].Error != "use_dpop_nonce" || log[1].Status != 200 {
		t.Fatalf("token requests %+v, want use_dpop_nonce then a token, both with a proof", log)
	}
	tok, err := pat.Token(context.Background())
	if err != nil || tok.TokenType != "DPoP" {
		t.Fatalf("token %v, %v: want token_type DPoP", tok, err)
	}

	// The same token without a proof, as Bearer, is refused (§7.2).
	req, _ := http.NewRequest(http.MethodGet, api.URL+"/orders", nil)
	req.Header.Set("Authorization", "Bearer "+tok.Value)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("a bound token as Bearer: status %d", resp.StatusCode)
	}

	if _, err := pat.TokenSource(context.Background()).Token(); err == nil || !strings.Contains(err.Error(), "Pattern.Transport") {
		t.Fatalf("TokenSource: %v, want a refusal naming Pattern.Transport", err)
	}
}
