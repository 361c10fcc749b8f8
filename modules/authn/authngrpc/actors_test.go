package authngrpc_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/authngrpc"
	"github.com/svckit/svc/modules/authn/authntest"
)

// A call whose token's delegation chain the gate's authn.Actors refuses is
// PermissionDenied with no challenge, as it is 403 over HTTP.
func TestActorsPolicyOverGRPC(t *testing.T) {
	iss := authntest.NewIssuer(t)
	g, err := authn.New(iss.Verifier(), authn.Actors(1, []string{"orders"}))
	if err != nil {
		t.Fatal(err)
	}
	client := serveHealth(t, health.NewServer(), grpc.ChainUnaryInterceptor(authngrpc.UnaryServerInterceptor(g, authngrpc.Require(check))))
	for _, c := range []struct {
		name string
		act  any
		code codes.Code
	}{
		{"no actor", nil, codes.OK},
		{"an accepted actor", map[string]any{"sub": "orders"}, codes.OK},
		{"another actor", map[string]any{"sub": "mallory"}, codes.PermissionDenied},
		{"too deep", map[string]any{"sub": "orders", "act": map[string]any{"sub": "gateway"}}, codes.PermissionDenied},
	} {
		opts := []authntest.TokenOption{authntest.Subject("alice"), authntest.Expires(time.Now().Add(time.Hour))}
		if c.act != nil {
			opts = append(opts, authntest.Claim("act", c.act))
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		ctx = metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+iss.Token(opts...))
		var header metadata.MD
		_, err := client.Check(ctx, &healthpb.HealthCheckRequest{}, grpc.Header(&header))
		cancel()
		st := status.Convert(err)
		if st.Code() != c.code || len(header.Get("www-authenticate")) != 0 || strings.Contains(st.Message(), "mallory") {
			t.Errorf("%s: %v %q, www-authenticate %q", c.name, st.Code(), st.Message(), header.Get("www-authenticate"))
		}
	}
}
