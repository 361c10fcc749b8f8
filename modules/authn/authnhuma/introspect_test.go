package authnhuma_test

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/svckit/svc/modules/authn/bearer"
	svcerrors "github.com/svckit/svc/modules/errors"
	"github.com/svckit/svc/modules/oauthclient"
	"github.com/svckit/svc/secret"
)

// Issue 20: opaque tokens on Huma, the verifier being all the gate needs:
// an active token reaches the operation as its caller, a failed
// introspection is 503 introspection-unavailable with Retry-After.
func TestOpaqueTokensOnHuma(t *testing.T) {
	var up atomic.Bool
	up.Store(true)
	idp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		if !up.Load() {
			w.WriteHeader(http.StatusBadGateway)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"active": true, "iss": "https://idp.test", "aud": "api",
			"sub": "alice", "exp": time.Now().Add(time.Hour).Unix()})
	}))
	t.Cleanup(idp.Close)
	client, err := oauthclient.New(oauthclient.WithoutEnv(), oauthclient.TokenEndpoint(idp.URL+"/token"),
		oauthclient.ClientID("rs"), oauthclient.ClientSecret(secret.String("s")))
	if err != nil {
		t.Fatal(err)
	}
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	v := bearer.KeySet("https://idp.test", "api", []crypto.PublicKey{&key.PublicKey},
		bearer.Introspect(idp.URL+"/introspect", client), bearer.CacheBytes(0))
	if err := v.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = v.Close(context.Background()) })
	each(t, appOptions{verify: v}, func(t *testing.T, a *app, fname string, res *svcerrors.Responses) {
		srv := a.serve(t, res)
		up.Store(true)
		got := do(t, srv, "GET", "/api/me", bearerHeader("opaque-huma-token"), "")
		if got.status != 200 || got.json["message"] != "hello alice" {
			t.Fatalf("%d %s", got.status, got.body)
		}
		up.Store(false)
		got = do(t, srv, "GET", "/api/me", bearerHeader("opaque-huma-token"), "")
		checkError(t, got, fname, 503, "introspection-unavailable")
		if got.header.Get("Retry-After") != "5" {
			t.Fatalf("Retry-After %q", got.header.Get("Retry-After"))
		}
	})
}
