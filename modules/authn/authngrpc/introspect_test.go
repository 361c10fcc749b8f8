package authngrpc_test

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

	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/bearer"
	"github.com/svckit/svc/modules/oauthclient"
	"github.com/svckit/svc/secret"
)

// Issue 20: an opaque token reaches a gRPC method through introspection,
// the verifier being all the interceptor needs; an inactive one is
// Unauthenticated and a failed introspection Unavailable.
func TestOpaqueTokensOverGRPC(t *testing.T) {
	var answer atomic.Pointer[map[string]any]
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		a := answer.Load()
		if a == nil {
			w.WriteHeader(http.StatusBadGateway)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(*a)
	}))
	t.Cleanup(srv.Close)
	client, err := oauthclient.New(oauthclient.WithoutEnv(), oauthclient.TokenEndpoint(srv.URL+"/token"),
		oauthclient.ClientID("rs"), oauthclient.ClientSecret(secret.String("s")))
	if err != nil {
		t.Fatal(err)
	}
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	v := bearer.KeySet("https://idp.test", "api", []crypto.PublicKey{&key.PublicKey},
		bearer.Introspect(srv.URL+"/introspect", client), bearer.CacheBytes(0))
	if err := v.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close(context.Background()) })
	g, err := authn.New(v)
	if err != nil {
		t.Fatal(err)
	}
	health, sp := startServer(t, g)
	call := func() error {
		ctx := metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer opaque-grpc-token")
		_, err := health.Check(ctx, &healthpb.HealthCheckRequest{})
		return err
	}
	answer.Store(&map[string]any{"active": true, "iss": "https://idp.test", "aud": "api", "sub": "carol",
		"exp": time.Now().Add(time.Hour).Unix()})
	if err := call(); err != nil {
		t.Fatal(err)
	}
	if got := <-sp.subject; got != "carol" {
		t.Fatalf("subject %q", got)
	}
	answer.Store(&map[string]any{"active": false})
	if err := call(); status.Code(err) != codes.Unauthenticated {
		t.Fatalf("inactive: %v", err)
	}
	answer.Store(nil)
	if err := call(); status.Code(err) != codes.Unavailable {
		t.Fatalf("failed introspection: %v", err)
	}
}
