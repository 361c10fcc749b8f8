package authn_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/svckit/svc/internal/dpoptest"
	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/bearer"
	"github.com/svckit/svc/modules/authn/dpop"
	svcerrors "github.com/svckit/svc/modules/errors"
)

// dpopFake adds to the fake verifier a token bound to key (cnf.jkt) and
// one bound to an unreadable cnf.
func dpopFake(key *dpoptest.Key) *fakeVerifier {
	f := newFake()
	f.callers["bound-token"] = bearer.Principal{Subject: "bob", Issuer: "https://idp.test", Authenticated: true,
		Claims: &bearer.Claims{Raw: map[string]json.RawMessage{"cnf": json.RawMessage(`{"jkt":"` + key.JKT + `"}`)}}}
	f.callers["badcnf-token"] = bearer.Principal{Subject: "carol", Issuer: "https://idp.test", Authenticated: true,
		Claims: &bearer.Claims{Raw: map[string]json.RawMessage{"cnf": json.RawMessage(`"x"`)}}}
	return f
}

func newDPoPVerifier(t *testing.T, opts ...dpop.Option) *dpop.Verifier {
	t.Helper()
	v, err := dpop.New(opts...)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestGateDPoP(t *testing.T) {
	alice, mallory := dpoptest.New(t), dpoptest.New(t)
	type req struct {
		scheme, token string
		proof         func(url string) string
	}
	const invalidProof = `DPoP algs="ES256", error="invalid_dpop_proof"`
	const invalidToken = `DPoP algs="ES256", error="invalid_token"`
	for _, tc := range []struct {
		name       string
		required   bool
		req        func(t *testing.T) req
		status     int
		reason     string
		challenges []string
	}{
		{name: "bound token, DPoP scheme, good proof", req: func(t *testing.T) req {
			return req{"DPoP", "bound-token", func(u string) string { return alice.Proof(t, "GET", u, "bound-token", "") }}
		}, status: 200},
		{name: "scheme case-insensitive", req: func(t *testing.T) req {
			return req{"dpop", "bound-token", func(u string) string { return alice.Proof(t, "GET", u, "bound-token", "") }}
		}, status: 200},
		{name: "bound token as Bearer (§7.2)", req: func(t *testing.T) req {
			return req{"Bearer", "bound-token", func(u string) string { return alice.Proof(t, "GET", u, "bound-token", "") }}
		}, status: 401, reason: "dpop-required", challenges: []string{invalidToken}},
		{name: "unbound token as Bearer, DPoP allowed", req: func(*testing.T) req { return req{"Bearer", "alice-token", nil} }, status: 200},
		{name: "unbound token as Bearer, DPoP required", required: true, req: func(*testing.T) req { return req{"Bearer", "alice-token", nil} },
			status: 401, reason: "dpop-required", challenges: []string{invalidToken}},
		{name: "unbound token with the DPoP scheme", req: func(t *testing.T) req {
			return req{"DPoP", "alice-token", func(u string) string { return alice.Proof(t, "GET", u, "alice-token", "") }}
		}, status: 401, reason: "dpop-binding", challenges: []string{invalidToken}},
		// A cnf that is not an object binds to nothing any gate checks.
		{name: "unreadable cnf", req: func(t *testing.T) req {
			return req{"DPoP", "badcnf-token", func(u string) string { return alice.Proof(t, "GET", u, "badcnf-token", "") }}
		}, status: 401, reason: "token-type", challenges: []string{invalidToken}},
		{name: "proof by another key than the token's (stolen token)", req: func(t *testing.T) req {
			return req{"DPoP", "bound-token", func(u string) string { return mallory.Proof(t, "GET", u, "bound-token", "") }}
		}, status: 401, reason: "dpop-binding", challenges: []string{invalidToken}},
		{name: "proof for another URL", req: func(t *testing.T) req {
			return req{"DPoP", "bound-token", func(u string) string { return alice.Proof(t, "GET", u+"/other", "bound-token", "") }}
		}, status: 401, reason: "dpop-proof", challenges: []string{invalidProof}},
		{name: "proof for another method", req: func(t *testing.T) req {
			return req{"DPoP", "bound-token", func(u string) string { return alice.Proof(t, "POST", u, "bound-token", "") }}
		}, status: 401, reason: "dpop-proof", challenges: []string{invalidProof}},
		{name: "proof for another token (ath)", req: func(t *testing.T) req {
			return req{"DPoP", "bound-token", func(u string) string { return alice.Proof(t, "GET", u, "other-token", "") }}
		}, status: 401, reason: "dpop-proof", challenges: []string{invalidProof}},
		{name: "DPoP scheme without a proof", req: func(*testing.T) req { return req{"DPoP", "bound-token", nil} },
			status: 401, reason: "dpop-proof", challenges: []string{invalidProof}},
		{name: "no credentials, DPoP allowed", req: func(*testing.T) req { return req{} },
			status: 401, challenges: []string{"Bearer", `DPoP algs="ES256"`}},
		{name: "no credentials, DPoP required", required: true, req: func(*testing.T) req { return req{} },
			status: 401, challenges: []string{`DPoP algs="ES256"`}},
		{name: "expired Bearer token, DPoP allowed", req: func(*testing.T) req { return req{"Bearer", "expired-token", nil} },
			status: 401, reason: "expired", challenges: []string{`Bearer error="invalid_token"`, `DPoP algs="ES256"`}},
		{name: "expired token with the DPoP scheme", req: func(t *testing.T) req {
			return req{"DPoP", "expired-token", func(u string) string { return alice.Proof(t, "GET", u, "expired-token", "") }}
		}, status: 401, reason: "expired", challenges: []string{invalidToken}},
		{name: "malformed token with the DPoP scheme", req: func(*testing.T) req { return req{"DPoP", "a b", nil} },
			status: 401, reason: "malformed", challenges: []string{invalidToken}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := gateServer(t, svcerrors.New(), newPlainChi(), dpopFake(alice), authn.DPoP(newDPoPVerifier(t), tc.required))
			rq := tc.req(t)
			h := http.Header{}
			if rq.scheme != "" {
				h.Set("Authorization", rq.scheme+" "+rq.token)
			}
			if rq.proof != nil {
				h.Set("DPoP", rq.proof(srv.URL+"/me"))
			}
			got := do(t, srv, "GET", "/me", h, "")
			if !wantAnswer(t, got, tc.status, tc.challenges, tc.reason) {
				return
			}
			for _, leak := range []string{"bound-token", "alice-token", "eyJ"} {
				if strings.Contains(got.body, leak) {
					t.Errorf("body quotes %q: %s", leak, got.body)
				}
			}
		})
	}
}

func TestGateDPoPReplayAndNonce(t *testing.T) {
	alice := dpoptest.New(t)
	nonces, err := dpop.NewNonceSource([]byte(strings.Repeat("n", 32)), time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	srv := gateServer(t, svcerrors.New(), newPlainChi(), dpopFake(alice), authn.DPoP(newDPoPVerifier(t, dpop.RequireNonce(nonces)), true))
	send := func(proof string) served {
		return do(t, srv, "GET", "/me", http.Header{"Authorization": {"DPoP bound-token"}, "Dpop": {proof}}, "")
	}
	// Without the nonce: use_dpop_nonce and the nonce to use.
	got := send(alice.Proof(t, "GET", srv.URL+"/me", "bound-token", ""))
	nonce := got.header.Get("DPoP-Nonce")
	if got.status != 401 || got.json["reason"] != "dpop-nonce" || nonce == "" ||
		got.header.Get("WWW-Authenticate") != `DPoP algs="ES256", error="use_dpop_nonce"` {
		t.Fatalf("without nonce: %d %v %s", got.status, got.header, got.body)
	}
	proof := alice.Proof(t, "GET", srv.URL+"/me", "bound-token", nonce)
	if got := send(proof); got.status != 200 || got.body != "hello bob" {
		t.Fatalf("with nonce: %d %s", got.status, got.body)
	}
	// The same proof again is a replay.
	if got := send(proof); got.status != 401 || got.json["reason"] != "dpop-proof" ||
		got.header.Get("WWW-Authenticate") != `DPoP algs="ES256", error="invalid_dpop_proof"` {
		t.Fatalf("replay: %d %v %s", got.status, got.header, got.body)
	}
}

type downReplay struct{}

func (downReplay) Remember(context.Context, string, time.Duration) (bool, error) {
	return false, errors.New("replay store down")
}

func TestGateDPoPReplayStoreDownAnswers503(t *testing.T) {
	alice := dpoptest.New(t)
	srv := gateServer(t, svcerrors.New(), newPlainChi(), dpopFake(alice), authn.DPoP(newDPoPVerifier(t, dpop.Store(downReplay{})), false))
	got := do(t, srv, "GET", "/me", http.Header{"Authorization": {"DPoP bound-token"}, "Dpop": {alice.Proof(t, "GET", srv.URL+"/me", "bound-token", "")}}, "")
	if got.status != http.StatusServiceUnavailable || strings.Contains(got.body, "replay store down") {
		t.Fatalf("%d %s", got.status, got.body)
	}
}

// Behind a trusted proxy, htu is the URL the client used, as the proxy
// tells it; the same headers from a peer that is not trusted are not
// believed.
func TestGateDPoPBehindATrustedProxy(t *testing.T) {
	alice := dpoptest.New(t)
	for _, tc := range []struct {
		name   string
		cidrs  []string
		status int
	}{
		{"trusted", []string{"127.0.0.0/8"}, 200},
		{"not trusted", []string{"10.0.0.0/8"}, 401},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := gateServerBehind(t, tc.cidrs, svcerrors.New(), newPlainChi(), dpopFake(alice), authn.DPoP(newDPoPVerifier(t), false))
			got := do(t, srv, "GET", "/me", http.Header{
				"Authorization":     {"DPoP bound-token"},
				"Dpop":              {alice.Proof(t, "GET", "https://api.example/me", "bound-token", "")},
				"X-Forwarded-Proto": {"https"},
				"X-Forwarded-Host":  {"api.example"},
			}, "")
			if got.status != tc.status {
				t.Fatalf("status %d, want %d: %s", got.status, tc.status, got.body)
			}
		})
	}
}

// A refused proof's record and its count name the proof's own reason
// beside the word.
func TestGateDPoPRecordAndMetricNameTheProofReason(t *testing.T) {
	m := installMetrics(t)
	alice := dpoptest.New(t)
	o := observedGate(t, newPlainChi(), dpopFake(alice), authn.DPoP(newDPoPVerifier(t), false))
	replayed := alice.Proof(t, "GET", o.srv.URL+"/me", "bound-token", "")
	for _, proof := range []string{
		alice.Proof(t, "GET", o.srv.URL+"/elsewhere", "bound-token", ""), // htu
		alice.Proof(t, "POST", o.srv.URL+"/me", "bound-token", ""),       // htm
		replayed, replayed, // admitted, then replayed
		alice.Proof(t, "GET", o.srv.URL+"/me", "other-token", ""), // ath
	} {
		do(t, o.srv, "GET", "/me", http.Header{"Authorization": {"DPoP bound-token"}, "Dpop": {proof}}, "")
	}
	do(t, o.srv, "GET", "/me", bearerHeader("bound-token"), "") // dpop-required
	recs := o.security()
	if len(recs) == 0 {
		t.Fatal("no records")
	}
	if f := recs[0].ContextMap(); f["error.type"] != "dpop-proof" || f["svc.dpop.reason"] != "htu" {
		t.Fatalf("record %v", f)
	}
	s := attribute.String
	for reason, want := range map[string]int64{"htu": 1, "htm": 1, "replayed": 1, "ath": 1} {
		if n := m.sum(t, "svc.authentication.attempts", s("svc.outcome", "refused"), s("error.type", "dpop-proof"), s("svc.dpop.reason", reason)); n != want {
			t.Errorf("dpop-proof %s counted %d, want %d", reason, n, want)
		}
	}
	if n := m.sum(t, "svc.authentication.attempts", s("error.type", "dpop-proof")); n != 4 {
		t.Errorf("dpop-proof counted %d, want 4", n)
	}
	if n := m.sum(t, "svc.authentication.attempts", s("error.type", "dpop-required")); n != 1 {
		t.Errorf("dpop-required counted %d, want 1", n)
	}
}

// A proof refused for its binding spends nothing in the replay store: a
// holder of any valid token, sending proofs of throw-away keys (with a
// token bound to no key, or to another key), cannot fill the store and
// have everyone's DPoP requests refused 503.
func TestGateDPoPBindingIsCheckedBeforeTheJTIIsRemembered(t *testing.T) {
	alice := dpoptest.New(t)
	const room = 50
	srv := gateServer(t, svcerrors.New(), newPlainChi(), dpopFake(alice),
		authn.DPoP(newDPoPVerifier(t, dpop.Store(dpop.NewMemoryReplay(room))), false))
	send := func(token, proof string) served {
		return do(t, srv, "GET", "/me", http.Header{"Authorization": {"DPoP " + token}, "Dpop": {proof}}, "")
	}
	for i := 0; i < room; i++ {
		token := "alice-token" // bound to no key
		if i%2 == 1 {
			token = "bound-token" // bound to alice's key, not the proof's
		}
		got := send(token, dpoptest.New(t).Proof(t, "GET", srv.URL+"/me", token, ""))
		if got.status != 401 || got.json["reason"] != "dpop-binding" ||
			got.header.Get("WWW-Authenticate") != `DPoP algs="ES256", error="invalid_token"` {
			t.Fatalf("proof %d of a throw-away key: %d %v %s", i, got.status, got.header, got.body)
		}
	}
	if got := send("bound-token", alice.Proof(t, "GET", srv.URL+"/me", "bound-token", "")); got.status != 200 || got.body != "hello bob" {
		t.Fatalf("the bound key's own proof after %d refused ones: %d %s", room, got.status, got.body)
	}
}
