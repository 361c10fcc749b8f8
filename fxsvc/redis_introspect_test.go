package fxsvc_test

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/redis/go-redis/v9"
	"go.uber.org/fx"
	"go.uber.org/fx/fxtest"
	"go.uber.org/zap"

	"github.com/svckit/svc/fxsvc"
	"github.com/svckit/svc/internal/redistest"
	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/bearer"
	"github.com/svckit/svc/modules/oauthclient"
	"github.com/svckit/svc/modules/redisstore"
	"github.com/svckit/svc/modules/redisstore/fxredis"
	"github.com/svckit/svc/secret"
)

// introspectionEndpoint answers RFC 7662 requests on loopback: active for
// the tokens in active, inactive for any other, counting the requests.
type introspectionEndpoint struct {
	*httptest.Server
	requests atomic.Int32
}

func newIntrospectionEndpoint(t *testing.T, issuer, audience string, active ...string) *introspectionEndpoint {
	t.Helper()
	e := &introspectionEndpoint{}
	e.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.requests.Add(1)
		_ = r.ParseForm()
		answer := map[string]any{"active": false}
		for _, tok := range active {
			if r.PostForm.Get("token") == tok {
				answer = map[string]any{"active": true, "iss": issuer, "aud": audience, "sub": "user-" + tok[:5],
					"exp": time.Now().Add(time.Hour).Unix(), "scope": "read"}
			}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(answer)
	}))
	t.Cleanup(e.Close)
	return e
}

// Issue 20: two apps with fxredis.Redis, as two replicas, introspect a
// token once between them; an entry written straight into Redis is not
// believed; with Redis down, tokens are still introspected at the
// endpoint (authentication never fails open).
func TestAuthnOnRedisSharesIntrospections(t *testing.T) {
	srv := redistest.Start(t)
	const issuer, audience = "https://idp.example", "api://orders"
	const alice, bob, mallory = "alice-opaque-0123456789", "bobby-opaque-0123456789", "mallo-opaque-0123456789"
	endpoint := newIntrospectionEndpoint(t, issuer, audience, alice, bob)
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	replica := func() http.Handler {
		client, err := oauthclient.New(oauthclient.WithoutEnv(), oauthclient.TokenEndpoint(endpoint.URL+"/token"),
			oauthclient.ClientID("orders"), oauthclient.ClientSecret(secret.String("introspection-secret")))
		if err != nil {
			t.Fatal(err)
		}
		v := bearer.KeySet(issuer, audience, []crypto.PublicKey{&key.PublicKey}, bearer.Introspect(endpoint.URL+"/introspect", client))
		var g *authn.Gate
		app := fxtest.New(t,
			fx.Supply(zap.NewNop()),
			fxredis.Config(redisstore.Config{URL: secret.URL(srv.URL), Prefix: "app:", Timeout: 300 * time.Millisecond}),
			fxsvc.Authn(v),
			fx.Populate(&g))
		app.RequireStart()
		t.Cleanup(app.RequireStop)
		r := chi.NewRouter()
		r.Get("/me", func(w http.ResponseWriter, r *http.Request) {
			p, _ := authn.PrincipalFrom(r.Context())
			w.Write([]byte(p.Subject))
		})
		h, err := g.Handler(r)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	call := func(h http.Handler, token string) (int, string) {
		req := httptest.NewRequest("GET", "/me", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		return w.Code, w.Body.String()
	}
	a, b := replica(), replica()
	if code, body := call(a, alice); code != 200 || body != "user-alice" {
		t.Fatalf("first replica: %d %s", code, body)
	}
	if code, body := call(b, alice); code != 200 || body != "user-alice" {
		t.Fatalf("second replica: %d %s", code, body)
	}
	if n := endpoint.requests.Load(); n != 1 {
		t.Fatalf("%d introspection requests for one token on two replicas, want 1", n)
	}

	// A writer of Redis copies alice's entry under mallory's key (found
	// by letting a replica introspect mallory first), and writes
	// valid-looking answers under another's: a fresh replica believes
	// neither.
	admin := redis.NewClient(&redis.Options{Addr: srv.Addr})
	defer admin.Close()
	ctx := context.Background()
	before, _ := admin.Keys(ctx, "app:introspection:*").Result()
	if code, _ := call(a, mallory); code != 401 {
		t.Fatalf("mallory's token: %d", code)
	}
	after, _ := admin.Keys(ctx, "app:introspection:*").Result()
	if len(before) != 1 || len(after) != 2 {
		t.Fatalf("keys before %v, after %v", before, after)
	}
	malloryKey := after[0]
	if malloryKey == before[0] {
		malloryKey = after[1]
	}
	aliceEntry, err := admin.Get(ctx, before[0]).Bytes()
	if err != nil || strings.Contains(string(aliceEntry), alice) || strings.Contains(string(aliceEntry), "introspection-secret") {
		t.Fatalf("alice's entry holds the token or the secret, or is unreadable: %v", err)
	}
	bare, _ := json.Marshal(map[string]any{"active": true, "iss": issuer, "aud": audience, "sub": "user-alice", "exp": time.Now().Add(time.Hour).Unix()})
	for name, forged := range map[string][]byte{
		"alice's entry copied":     aliceEntry,
		"a bare active answer":     bare,
		"an answer with a bad tag": append(append([]byte{'1', 'j'}, make([]byte, 8+32)...), bare...),
	} {
		if err := admin.Set(ctx, malloryKey, forged, time.Hour).Err(); err != nil {
			t.Fatal(err)
		}
		asked := endpoint.requests.Load()
		if code, body := call(replica(), mallory); code != 401 || endpoint.requests.Load() != asked+1 {
			t.Fatalf("%s: %d %s, %d requests (want 401 from the endpoint's answer)", name, code, body, endpoint.requests.Load()-asked)
		}
	}

	// Redis down: bob's token is introspected at the endpoint.
	srv.Stop()
	asked := endpoint.requests.Load()
	if code, body := call(b, bob); code != 200 || body != "user-bobby" || endpoint.requests.Load() != asked+1 {
		t.Fatalf("with Redis down: %d %s, %d requests", code, body, endpoint.requests.Load()-asked)
	}
	if code, _ := call(b, mallory); code != 401 {
		t.Fatalf("with Redis down, mallory's token: %d", code)
	}
}
