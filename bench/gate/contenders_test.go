package gate_test

import (
	"context"
	"crypto"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	jwtmiddleware "github.com/auth0/go-jwt-middleware/v2"
	"github.com/auth0/go-jwt-middleware/v2/validator"
	"github.com/go-chi/chi/v5"
	"github.com/go-chi/jwtauth/v5"
	"github.com/lestrrat-go/jwx/v2/jwt"

	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/bearer"
)

const meBody = `{"sub":"user-1234567890"}`

// router is the app every contender guards: one chi route answering a
// small body.
func router() *chi.Mux {
	r := chi.NewRouter()
	r.Get("/me", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, meBody)
	})
	return r
}

// bareChi is the floor: the route with no authentication at all.
func bareChi(testing.TB, *keys) http.Handler { return router() }

// svcGate is svc's gate in front of the router, on a held ES256 key. The
// verifier is a lifecycle component: it is opened here and closed when the
// benchmark ends.
func svcGate(opts ...bearer.VerifierOption) func(testing.TB, *keys) http.Handler {
	return func(tb testing.TB, k *keys) http.Handler {
		tb.Helper()
		v := bearer.KeySet(issuer, audience, []crypto.PublicKey{&k.key.PublicKey}, opts...)
		if err := v.Open(context.Background()); err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(func() { _ = v.Close(context.Background()) })
		g, err := authn.New(v)
		if err != nil {
			tb.Fatal(err)
		}
		h, err := g.Handler(router())
		if err != nil {
			tb.Fatal(err)
		}
		return h
	}
}

// auth0 is auth0/go-jwt-middleware v2 with its validator (go-jose v2),
// ES256 only, the same issuer and audience, wrapped around the router as
// svc's gate is.
func auth0(tb testing.TB, k *keys) http.Handler {
	tb.Helper()
	v, err := validator.New(func(context.Context) (any, error) { return &k.key.PublicKey, nil },
		validator.ES256, issuer, []string{audience})
	if err != nil {
		tb.Fatal(err)
	}
	return jwtmiddleware.New(v.ValidateToken).CheckJWT(router())
}

// jwtAuth is go-chi/jwtauth v5 (lestrrat jwx v2): Verifier then
// Authenticator, ES256 with the public key, checking issuer and audience.
func jwtAuth(tb testing.TB, k *keys) http.Handler {
	tb.Helper()
	ja := jwtauth.New("ES256", nil, &k.key.PublicKey, jwt.WithIssuer(issuer), jwt.WithAudience(audience))
	return jwtauth.Verifier(ja)(jwtauth.Authenticator(ja)(router()))
}

type contender struct {
	name  string
	build func(testing.TB, *keys) http.Handler
	// guards is false for the floor, which accepts anything.
	guards bool
	// missing is the status a guard answers a request without a token:
	// 401, except auth0's default error handler, which answers 400
	// ("JWT is missing."). The peers run with their defaults.
	missing int
}

var (
	floor    = contender{"bare-chi", bareChi, false, 0}
	svc      = contender{"svc", svcGate(), true, http.StatusUnauthorized}
	svcNoCch = contender{"svc-cache-off", svcGate(bearer.CacheBytes(0)), true, http.StatusUnauthorized}
	// 256 KiB (room for about 70 entries) against a pool of 4096 tokens:
	// nearly every request misses, verifies, and inserts with an
	// eviction, which is what a fresh token costs with the cache on.
	svcMiss    = contender{"svc-cache-miss", svcGate(bearer.CacheBytes(256 << 10)), true, http.StatusUnauthorized}
	auth0Peer  = contender{"auth0", auth0, true, http.StatusBadRequest}
	jwtauthPer = contender{"jwtauth", jwtAuth, true, http.StatusUnauthorized}
)

func request(auth []string) *http.Request {
	r := httptest.NewRequest(http.MethodGet, "/me", nil)
	if auth != nil {
		r.Header["Authorization"] = auth
	}
	return r
}

// expect serves r once and fails unless the answer has the status (and,
// for 200, the route's body): a misconfigured contender must not get to
// look fast.
func expect(tb testing.TB, name string, h http.Handler, r *http.Request, status int) {
	tb.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	if rec.Code != status {
		tb.Fatalf("%s: status %d, want %d (body %q)", name, rec.Code, status, rec.Body.String())
	}
	if status == http.StatusOK && rec.Body.String() != meBody {
		tb.Fatalf("%s: body %q", name, rec.Body.String())
	}
}

// checked builds c and proves it accepts the fixture token and, when it
// guards, refuses a request without one and a token signed by another key.
func checked(tb testing.TB, c contender, k *keys) http.Handler {
	tb.Helper()
	h := c.build(tb, k)
	expect(tb, c.name, h, request(k.one.auth), http.StatusOK)
	if c.guards {
		expect(tb, c.name, h, request(nil), c.missing)
		expect(tb, c.name+" (forged)", h, request(forged()), http.StatusUnauthorized)
	}
	return h
}

// forged is the fixture token re-signed by a stranger's key.
func forged() []string {
	return newKeys().mint(0, time.Now()).auth
}
