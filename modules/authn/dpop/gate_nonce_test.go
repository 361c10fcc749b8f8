package dpop_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/authntest"
	"github.com/svckit/svc/modules/authn/dpop"
)

// RFC 9449 §8.2: the gate sends a fresh nonce on an admitted request whose
// proof carried the previous step's, so a client moves on without a
// use_dpop_nonce refusal every step; a proof with the current nonce gets
// no DPoP-Nonce. Here, beside the verifier's fake clock, because only
// this package can set it.
func TestGateSendsTheCurrentNonceOnAnAdmittedRequest(t *testing.T) {
	var clock atomic.Int64
	clock.Store(time.Now().UnixNano())
	nonces, err := dpop.NewNonceSource([]byte(strings.Repeat("s", 32)), 5*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	v := newVerifier(t, dpop.RequireNonce(nonces))
	dpop.SetClock(v, func() time.Time { return time.Unix(0, clock.Load()) })

	iss := authntest.NewIssuer(t)
	es := newES256(t)
	token := iss.Token(authntest.Claim("cnf", map[string]string{"jkt": es.thumbprint(t)}))
	g, err := authn.New(iss.Verifier(), authn.DPoP(v, true))
	if err != nil {
		t.Fatal(err)
	}
	h, err := g.Handler(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("in")) }))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)

	send := func(nonce string) *http.Response {
		t.Helper()
		p := es.proof("GET", srv.URL+"/x", time.Unix(0, clock.Load()).Unix())
		p.claims["ath"], p.claims["nonce"] = ath(token), nonce
		req, err := http.NewRequest("GET", srv.URL+"/x", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "DPoP "+token)
		req.Header.Set("DPoP", p.String())
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	first := nonces.Current()
	if resp := send(first); resp.StatusCode != 200 || resp.Header.Values("DPoP-Nonce") != nil {
		t.Fatalf("current nonce: %d, DPoP-Nonce %q (want none)", resp.StatusCode, resp.Header.Values("DPoP-Nonce"))
	}
	clock.Add(int64(5 * time.Minute)) // first is now the previous step's
	resp := send(first)
	if got := resp.Header.Values("DPoP-Nonce"); resp.StatusCode != 200 || len(got) != 1 || got[0] != nonces.Current() || got[0] == first {
		t.Fatalf("previous step's nonce: %d, DPoP-Nonce %q, want [%q]", resp.StatusCode, got, nonces.Current())
	}
	if resp := send(nonces.Current()); resp.StatusCode != 200 || resp.Header.Values("DPoP-Nonce") != nil {
		t.Fatalf("the nonce sent: %d, DPoP-Nonce %q (want none)", resp.StatusCode, resp.Header.Values("DPoP-Nonce"))
	}
	clock.Add(int64(10 * time.Minute)) // two steps on: refused, with the nonce to use
	if resp := send(first); resp.StatusCode != 401 || resp.Header.Get("DPoP-Nonce") != nonces.Current() {
		t.Fatalf("stale nonce: %d, DPoP-Nonce %q", resp.StatusCode, resp.Header.Get("DPoP-Nonce"))
	}
}
