package fxsvc_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"go.uber.org/fx"
	"go.uber.org/fx/fxtest"
	"go.uber.org/zap"

	"github.com/svckit/svc/fxsvc"
	"github.com/svckit/svc/internal/dpoptest"
	"github.com/svckit/svc/internal/redistest"
	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/bearer"
	"github.com/svckit/svc/modules/redisstore"
	"github.com/svckit/svc/modules/redisstore/fxredis"
	"github.com/svckit/svc/secret"
)

// boundTokens verifies "bound-token", bound to key (cnf.jkt), and
// "alice-token", bound to nothing.
type boundTokens struct{ key *dpoptest.Key }

func (b boundTokens) Verify(ctx context.Context, tok string) (bearer.Principal, error) {
	if tok == "bound-token" {
		return bearer.Principal{Subject: "bob", Authenticated: true,
			Claims: &bearer.Claims{Raw: map[string]json.RawMessage{"cnf": json.RawMessage(`{"jkt":"` + b.key.JKT + `"}`)}}}, nil
	}
	return tokens{}.Verify(ctx, tok)
}

// dpopReplica is an app of fxsvc.Authn with fxredis on srv (nil: none),
// DPoP from the environment; its gate in front of GET /me.
func dpopReplica(t *testing.T, v bearer.Verifier, redisURL string) http.Handler {
	t.Helper()
	var g *authn.Gate
	opts := []fx.Option{fx.Supply(zap.NewNop()), fxsvc.Authn(v), fx.Populate(&g)}
	if redisURL != "" {
		opts = append(opts, fxredis.Config(redisstore.Config{URL: secret.URL(redisURL), Prefix: "app:", Timeout: 2 * time.Second}))
	}
	app := fxtest.New(t, opts...)
	app.RequireStart()
	t.Cleanup(app.RequireStop)
	return gateOnMe(t, g)
}

func callWith(h http.Handler, header http.Header) *httptest.ResponseRecorder {
	req := httptest.NewRequest("GET", "/me", nil) // htu http://example.com/me
	req.Header = header
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w
}

func dpopHeader(key *dpoptest.Key, t *testing.T, nonce string) http.Header {
	return http.Header{"Authorization": {"DPoP bound-token"}, "Dpop": {key.Proof(t, "GET", "http://example.com/me", "bound-token", nonce)}}
}

// Issue 21: SVC_AUTHN_DPOP with fxredis: a proof one replica accepted is
// a replay at the other, with no code; the replicas agree on the nonce of
// SVC_AUTHN_DPOP_NONCE_SECRET.
func TestDPoPFromSettingsSharesReplaysOnRedis(t *testing.T) {
	srv := redistest.Start(t)
	key := dpoptest.New(t)
	t.Setenv("SVC_AUTHN_DPOP", "required")
	t.Setenv("SVC_AUTHN_DPOP_NONCE_SECRET", strings.Repeat("k", 32))
	a := dpopReplica(t, boundTokens{key}, srv.URL)
	b := dpopReplica(t, boundTokens{key}, srv.URL)

	// Required: Bearer is refused, challenged with DPoP alone.
	w := callWith(a, http.Header{"Authorization": {"Bearer alice-token"}})
	if w.Code != 401 || w.Header().Get("WWW-Authenticate") != `DPoP algs="ES256", error="invalid_token"` {
		t.Fatalf("Bearer: %d %q", w.Code, w.Header().Values("WWW-Authenticate"))
	}
	// The nonce one replica hands out is the other's.
	w = callWith(a, dpopHeader(key, t, ""))
	nonce := w.Header().Get("DPoP-Nonce")
	if w.Code != 401 || nonce == "" || !strings.Contains(w.Header().Get("WWW-Authenticate"), "use_dpop_nonce") {
		t.Fatalf("without the nonce: %d %v", w.Code, w.Header())
	}
	proof := dpopHeader(key, t, nonce)
	if w := callWith(b, proof); w.Code != 200 {
		t.Fatalf("the other replica's nonce: %d %s", w.Code, w.Body)
	}
	if w := callWith(a, proof); w.Code != 401 || !strings.Contains(w.Header().Get("WWW-Authenticate"), "invalid_dpop_proof") {
		t.Fatalf("the proof replayed at the other replica: %d %v %s", w.Code, w.Header(), w.Body)
	}
}

// Without fxredis each replica remembers its own proofs: the replay
// passes at the other (which is why fxredis hands its store over).
func TestDPoPFromSettingsInMemory(t *testing.T) {
	key := dpoptest.New(t)
	t.Setenv("SVC_AUTHN_DPOP", "allowed")
	a := dpopReplica(t, boundTokens{key}, "")
	b := dpopReplica(t, boundTokens{key}, "")
	if w := callWith(a, http.Header{"Authorization": {"Bearer alice-token"}}); w.Code != 200 {
		t.Fatalf("Bearer where DPoP is allowed: %d %s", w.Code, w.Body)
	}
	proof := dpopHeader(key, t, "")
	if w := callWith(a, proof); w.Code != 200 {
		t.Fatalf("first use: %d %s", w.Code, w.Body)
	}
	if w := callWith(a, proof); w.Code != 401 {
		t.Fatalf("replay at the same replica: %d", w.Code)
	}
	if w := callWith(b, proof); w.Code != 200 {
		t.Fatalf("in memory, the other replica has not seen the proof: %d %s", w.Code, w.Body)
	}
}

// Every bad DPoP setting fails the build naming its variable, and the
// nonce secret never appears in the error.
func TestDPoPSettingsRefused(t *testing.T) {
	const short = "tooshort-s3cret"
	for _, c := range []struct {
		name string
		env  map[string]string
		want []string
	}{
		{"unknown policy", map[string]string{"SVC_AUTHN_DPOP": "maybe"}, []string{`SVC_AUTHN_DPOP="maybe"`, "off, allowed"}},
		{"algorithm none", map[string]string{"SVC_AUTHN_DPOP": "allowed", "SVC_AUTHN_DPOP_ALGORITHMS": "ES256,none"}, []string{"SVC_AUTHN_DPOP_ALGORITHMS=", `"none"`}},
		{"HMAC", map[string]string{"SVC_AUTHN_DPOP": "allowed", "SVC_AUTHN_DPOP_ALGORITHMS": "HS256"}, []string{"SVC_AUTHN_DPOP_ALGORITHMS=", "HS256"}},
		{"max age too short", map[string]string{"SVC_AUTHN_DPOP": "required", "SVC_AUTHN_DPOP_MAX_AGE": "10ms"}, []string{"SVC_AUTHN_DPOP_MAX_AGE=10ms"}},
		{"max age not a duration", map[string]string{"SVC_AUTHN_DPOP": "required", "SVC_AUTHN_DPOP_MAX_AGE": "soon"}, []string{"SVC_AUTHN_DPOP_MAX_AGE"}},
		{"short nonce secret", map[string]string{"SVC_AUTHN_DPOP": "required", "SVC_AUTHN_DPOP_NONCE_SECRET": short}, []string{"SVC_AUTHN_DPOP_NONCE_SECRET", "32"}},
		{"settings while off", map[string]string{"SVC_AUTHN_DPOP_NONCE_SECRET": strings.Repeat("k", 32)}, []string{"SVC_AUTHN_DPOP is off"}},
		{"two errors at once", map[string]string{"SVC_AUTHN_DPOP": "allowed", "SVC_AUTHN_DPOP_ALGORITHMS": "HS256", "SVC_AUTHN_DPOP_MAX_AGE": "1ms"},
			[]string{"SVC_AUTHN_DPOP_ALGORITHMS=", "SVC_AUTHN_DPOP_MAX_AGE=1ms"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			for k, v := range c.env {
				t.Setenv(k, v)
			}
			err := buildGate(fxsvc.Authn(tokens{}))
			if err == nil {
				t.Fatal("the app was built")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q: %v", w, err)
				}
			}
			if strings.Contains(err.Error(), short) || strings.Contains(err.Error(), "kkkk") {
				t.Errorf("the error quotes the nonce secret: %v", err)
			}
		})
	}
}

// The app's own authn.DPoP wins over SVC_AUTHN_DPOP.
func TestAppsDPoPOptionWinsOverTheSetting(t *testing.T) {
	t.Setenv("SVC_AUTHN_DPOP", "required")
	key := dpoptest.New(t)
	v := newDPoPVerifierT(t)
	var g *authn.Gate
	app := fx.New(fx.NopLogger, fx.Supply(zap.NewNop()), fxsvc.Authn(boundTokens{key}, authn.DPoP(v, false)), fx.Populate(&g))
	if err := app.Err(); err != nil {
		t.Fatal(err)
	}
	h := gateOnMe(t, g)
	if w := callWith(h, http.Header{"Authorization": {"Bearer alice-token"}}); w.Code != 200 {
		t.Fatalf("Bearer under the app's authn.DPoP(v, false): %d", w.Code)
	}
}
