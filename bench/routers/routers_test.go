// Benchmarks of svc's gate on the routers besides chi: net/http's ServeMux
// (Go 1.22+ patterns) and a Huma v2 API on it (humago), against
// auth0/go-jwt-middleware v2 around the same router and the bare router
// (the floor), in one run. Handlers are called directly (no network) with a
// reused discarding ResponseWriter; every answer's status is checked.
//
//	cd bench && go test -run '^$' -bench . -benchmem -count 5 ./routers
package routers_test

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	jwtmiddleware "github.com/auth0/go-jwt-middleware/v2"
	"github.com/auth0/go-jwt-middleware/v2/validator"
	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humago"

	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/authnhuma"
	"github.com/svckit/svc/modules/authn/bearer"
)

const (
	issuer   = "https://issuer.example"
	audience = "https://api.example"
)

func mint(key *ecdsa.PrivateKey) string {
	header := `{"alg":"ES256","typ":"at+jwt","kid":"k1"}`
	now := time.Now()
	payload, _ := json.Marshal(map[string]any{
		"iss": issuer, "sub": "user-1234567890", "aud": audience,
		"exp": now.Add(time.Hour).Unix(), "iat": now.Unix(), "nbf": now.Unix(),
		"jti": "3f1e1c2a-9b7d-4d8e-8f6a-000000000001", "client_id": "web-app",
		"scope": "openid profile orders:read orders:write",
	})
	enc := base64.RawURLEncoding
	input := enc.EncodeToString([]byte(header)) + "." + enc.EncodeToString(payload)
	digest := sha256.Sum256([]byte(input))
	r, s, err := ecdsa.Sign(rand.Reader, key, digest[:])
	if err != nil {
		panic(err)
	}
	sig := make([]byte, 64)
	r.FillBytes(sig[:32])
	s.FillBytes(sig[32:])
	return input + "." + enc.EncodeToString(sig)
}

const meBody = `{"sub":"user-1234567890"}`

func meHandler(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, meBody)
}

// muxApp is a ServeMux with a protected /me and an anonymous /hello.
func muxApp() *authn.ServeMux {
	mux := authn.NewServeMux()
	mux.HandleFunc("GET /me", meHandler)
	mux.Handle("GET /hello", authn.Anonymous(http.HandlerFunc(meHandler)))
	mux.HandleFunc("GET /other/{id}", meHandler)
	return mux
}

type meOut struct {
	Body struct {
		Sub string `json:"sub"`
	}
}

func meOp(context.Context, *struct{}) (*meOut, error) {
	o := &meOut{}
	o.Body.Sub = "user-1234567890"
	return o, nil
}

func humaConfig() huma.Config {
	cfg := huma.DefaultConfig("bench", "1.0.0")
	cfg.CreateHooks = nil // no schema-link transformer: the bare body for every contender
	return cfg
}

// humaApp is the same two operations on Huma: through authnhuma (markers,
// svc error format) or through humago itself.
func humaApp(svc bool, g *authn.Gate) http.Handler {
	mux := authn.NewServeMux()
	var api huma.API
	if svc {
		api = authnhuma.NewGo(mux, humaConfig(), authnhuma.Gate(g))
	} else {
		api = humago.New(mux, humaConfig())
	}
	huma.Get(api, "/me", meOp)
	huma.Get(api, "/hello", meOp, authnhuma.Anonymous)
	return mux
}

func verifier(tb testing.TB, key *ecdsa.PrivateKey) *bearer.JWTVerifier {
	v := bearer.KeySet(issuer, audience, []crypto.PublicKey{&key.PublicKey})
	if err := v.Open(context.Background()); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = v.Close(context.Background()) })
	return v
}

func svcGate(tb testing.TB, key *ecdsa.PrivateKey, router http.Handler) (http.Handler, *authn.Gate) {
	g, err := authn.New(verifier(tb, key))
	if err != nil {
		tb.Fatal(err)
	}
	h, err := g.Handler(router)
	if err != nil {
		tb.Fatal(err)
	}
	return h, g
}

func auth0(tb testing.TB, key *ecdsa.PrivateKey, router http.Handler, optional bool) http.Handler {
	v, err := validator.New(func(context.Context) (any, error) { return &key.PublicKey, nil },
		validator.ES256, issuer, []string{audience})
	if err != nil {
		tb.Fatal(err)
	}
	return jwtmiddleware.New(v.ValidateToken, jwtmiddleware.WithCredentialsOptional(optional)).CheckJWT(router)
}

type discard struct {
	h      http.Header
	status int
}

func (w *discard) Header() http.Header { return w.h }
func (w *discard) WriteHeader(s int) {
	if w.status == 0 {
		w.status = s
	}
}
func (w *discard) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return len(p), nil
}

func serve(b *testing.B, h http.Handler, r *http.Request, status int) {
	w := &discard{h: http.Header{}}
	b.ReportAllocs()
	for b.Loop() {
		clear(w.h)
		w.status = 0
		h.ServeHTTP(w, r)
		if w.status != status {
			b.Fatalf("status %d, want %d", w.status, status)
		}
	}
}

// BenchmarkRouters: per router (ServeMux, Huma on ServeMux),
//
//   - token: the same valid token to a protected route (svc answers from
//     its verification cache; auth0 has none and verifies every time);
//   - anonymous: no token to the anonymous route (svc finds the route
//     before dispatch: one more mux lookup; auth0 needs
//     CredentialsOptional, which opens every route of the router);
//   - refused: no token to the protected route (svc: 401 with its
//     challenge, a security record and metrics; auth0: 400).
func BenchmarkRouters(b *testing.B) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		b.Fatal(err)
	}
	tok := "Bearer " + mint(key)
	req := func(path string, auth bool) *http.Request {
		r := httptest.NewRequest(http.MethodGet, path, nil)
		if auth {
			r.Header.Set("Authorization", tok)
		}
		return r
	}
	type contender struct {
		name string
		h    func(b *testing.B) http.Handler
		anon bool // answers the anonymous route without a token
	}
	for _, router := range []string{"servemux", "huma"} {
		contenders := []contender{
			{"bare", func(*testing.B) http.Handler {
				if router == "huma" {
					return humaApp(false, nil)
				}
				return muxApp()
			}, true},
			{"svc", func(b *testing.B) http.Handler {
				if router == "huma" {
					g, err := authn.New(verifier(b, key))
					if err != nil {
						b.Fatal(err)
					}
					h, err := g.Handler(humaApp(true, g))
					if err != nil {
						b.Fatal(err)
					}
					return h
				}
				h, _ := svcGate(b, key, muxApp())
				return h
			}, true},
			{"auth0", func(b *testing.B) http.Handler {
				if router == "huma" {
					return auth0(b, key, humaApp(false, nil), false)
				}
				return auth0(b, key, muxApp(), false)
			}, false},
			{"auth0-optional", func(b *testing.B) http.Handler {
				if router == "huma" {
					return auth0(b, key, humaApp(false, nil), true)
				}
				return auth0(b, key, muxApp(), true)
			}, true},
		}
		for _, c := range contenders {
			b.Run(router+"/token/"+c.name, func(b *testing.B) { serve(b, c.h(b), req("/me", true), http.StatusOK) })
			if c.anon {
				b.Run(router+"/anonymous/"+c.name, func(b *testing.B) { serve(b, c.h(b), req("/hello", false), http.StatusOK) })
			}
			// auth0 refuses a missing token with 400 and no challenge.
			switch c.name {
			case "svc":
				b.Run(router+"/refused/"+c.name, func(b *testing.B) { serve(b, c.h(b), req("/me", false), http.StatusUnauthorized) })
			case "auth0":
				b.Run(router+"/refused/"+c.name, func(b *testing.B) { serve(b, c.h(b), req("/me", false), http.StatusBadRequest) })
			}
		}
	}
}
