package bearer

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// provider is a discovery + JWKS server on loopback. Its issuer is its own
// URL plus path.
type provider struct {
	*httptest.Server
	issuer   string
	jwks     []byte
	doc      func(issuer, jwksURI string) map[string]any
	oidc     bool // serve the OpenID Connect document (else only RFC 8414)
	requests atomic.Int32
	paths    chan string
}

func newProvider(t *testing.T, path string, oidc bool) *provider {
	t.Helper()
	k := keys(t)
	p := &provider{
		jwks:  jwksJSON(t, jwkJSON(t, &k.p256.PublicKey, "p256", "")),
		oidc:  oidc,
		paths: make(chan string, 100),
		doc: func(issuer, jwksURI string) map[string]any {
			return map[string]any{"issuer": issuer, "jwks_uri": jwksURI}
		},
	}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.requests.Add(1)
		select {
		case p.paths <- r.URL.Path:
		default:
		}
		switch r.URL.Path {
		case path + "/.well-known/openid-configuration":
			if !p.oidc {
				http.NotFound(w, r)
				return
			}
			json.NewEncoder(w).Encode(p.doc(p.issuer, p.URL+"/keys"))
		case "/.well-known/oauth-authorization-server" + path:
			json.NewEncoder(w).Encode(p.doc(p.issuer, p.URL+"/keys"))
		case "/keys":
			w.Write(p.jwks)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(p.Close)
	p.issuer = p.URL + path
	return p
}

func discoverVerifier(t *testing.T, issuer string, opts ...VerifierOption) *JWTVerifier {
	t.Helper()
	opts = append([]VerifierOption{Clock(fixedClock()), RetryInterval(time.Minute)}, opts...)
	return openVerifier(t, New(issuer, testAudience, opts...))
}

func tokenFor(t *testing.T, issuer string) string {
	c := validClaims()
	c["iss"] = issuer
	return joseSign(t, jose.ES256, keys(t).p256, "p256", c)
}

func TestDiscoverOpenIDConnect(t *testing.T) {
	for _, path := range []string{"", "/realms/main"} {
		t.Run("path "+path, func(t *testing.T) {
			p := newProvider(t, path, true)
			v := discoverVerifier(t, p.issuer)
			waitKeys(t, v)
			if _, err := v.Verify(context.Background(), tokenFor(t, p.issuer)); err != nil {
				t.Fatal(err)
			}
			if got, want := v.discoveryURL(), p.issuer+"/.well-known/openid-configuration"; got != want {
				t.Errorf("DiscoveryURL = %q, want %q", got, want)
			}
		})
	}
}

func TestDiscoverFallsBackToRFC8414(t *testing.T) {
	p := newProvider(t, "/tenant/a", false)
	v := discoverVerifier(t, p.issuer)
	waitKeys(t, v)
	if _, err := v.Verify(context.Background(), tokenFor(t, p.issuer)); err != nil {
		t.Fatal(err)
	}
	if got, want := v.discoveryURL(), p.URL+"/.well-known/oauth-authorization-server/tenant/a"; got != want {
		t.Errorf("DiscoveryURL = %q, want %q", got, want)
	}
}

func TestDiscoverRunsOnceThenFetchesOnlyKeys(t *testing.T) {
	p := newProvider(t, "", true)
	clock := newStepClock()
	v := New(p.issuer, testAudience, Clock(fixedClock()), RetryInterval(time.Minute))
	v.keys.(*keyManager).now = clock.Now
	openVerifier(t, v)
	waitKeys(t, v)
	clock.Advance(time.Minute)
	v.Verify(context.Background(), rawSign(t, "ES256", keys(t).p256, `{"alg":"ES256","kid":"new"}`, payloadOf(t, nil)))
	close(p.paths)
	var got []string
	for path := range p.paths {
		got = append(got, path)
	}
	if strings.Join(got, " ") != "/.well-known/openid-configuration /keys /keys" {
		t.Fatalf("requests: %v", got)
	}
}

func TestDiscoverRefusesAMisleadingDocument(t *testing.T) {
	cases := []struct {
		name string
		doc  func(issuer, jwksURI string) map[string]any
		want string
	}{
		{"other issuer", func(iss, j string) map[string]any {
			return map[string]any{"issuer": "https://evil.example", "jwks_uri": j}
		}, "names issuer"},
		{"issuer with a trailing slash", func(iss, j string) map[string]any {
			return map[string]any{"issuer": iss + "/", "jwks_uri": j}
		}, "names issuer"},
		{"no issuer", func(iss, j string) map[string]any { return map[string]any{"jwks_uri": j} }, "issuer none"},
		{"no jwks_uri", func(iss, j string) map[string]any { return map[string]any{"issuer": iss} }, "no jwks_uri"},
		{"plain http jwks_uri", func(iss, j string) map[string]any {
			return map[string]any{"issuer": iss, "jwks_uri": "http://keys.example/jwks"}
		}, "jwks_uri must be https"},
		{"jwks_uri not a string", func(iss, j string) map[string]any {
			return map[string]any{"issuer": iss, "jwks_uri": 7}
		}, "not a JSON document"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := newProvider(t, "", true)
			p.doc = c.doc
			v := discoverVerifier(t, p.issuer, RetryInterval(time.Hour))
			deadline := time.Now().Add(10 * time.Second)
			for {
				_, err := v.Verify(context.Background(), tokenFor(t, p.issuer))
				if err != nil && strings.Contains(err.Error(), c.want) {
					if v.set.Load() != nil {
						t.Fatal("keys loaded from a refused document")
					}
					return
				}
				if time.Now().After(deadline) {
					t.Fatalf("err = %v, want it to mention %q", err, c.want)
				}
				time.Sleep(time.Millisecond)
			}
		})
	}
}

func TestDiscoverNeverFollowsARedirectToPlainHTTP(t *testing.T) {
	// A loopback http target is allowed for tests, so check the refusal on
	// the redirect policy itself with a non-loopback http URL.
	hc := defaultHTTPClient()
	req := httptest.NewRequest(http.MethodGet, "http://keys.example/jwks", nil)
	if err := hc.CheckRedirect(req, []*http.Request{httptest.NewRequest(http.MethodGet, "https://issuer.example", nil)}); err == nil {
		t.Fatal("redirect to plain http allowed")
	}
	ok := httptest.NewRequest(http.MethodGet, "https://keys.example/jwks", nil)
	if err := hc.CheckRedirect(ok, []*http.Request{ok}); err != nil {
		t.Fatalf("redirect to https refused: %v", err)
	}
}

func TestDiscoverOpenNeverWaitsForTheNetwork(t *testing.T) {
	block := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-block:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(block) })
	v := New(srv.URL, testAudience)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := v.Open(ctx); err != nil {
		t.Fatal(err)
	}
	if ctx.Err() != nil {
		t.Fatal("Open waited for the provider")
	}
	if err := v.Close(ctx); err != nil {
		t.Fatalf("Close with a fetch in flight: %v", err)
	}
}
