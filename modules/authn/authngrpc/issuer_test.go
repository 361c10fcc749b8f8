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
	"github.com/svckit/svc/modules/authn/bearer"
)

// twoIssuers verifies a caller of each of two issuers.
type twoIssuers struct{}

func (twoIssuers) Verify(_ context.Context, token string) (bearer.Principal, error) {
	iss := map[string]string{"ours": "https://idp.test", "partner": "https://partner.test"}[token]
	if iss == "" {
		return bearer.Principal{}, &bearer.TokenError{Reason: bearer.ReasonSignature}
	}
	return bearer.Principal{Subject: token, Issuer: iss, Scopes: bearer.NewScopes("health:read"), Authenticated: true}, nil
}

// A Require rule With authn.RequireIssuer serves only that issuer's
// callers; another's is PermissionDenied, with no challenge.
func TestRequireIssuerOverGRPC(t *testing.T) {
	g, err := authn.New(twoIssuers{})
	if err != nil {
		t.Fatal(err)
	}
	rule := authngrpc.Require(check, "health:read").With(authn.RequireIssuer("https://partner.test"))
	client := serveHealth(t, health.NewServer(), grpc.ChainUnaryInterceptor(authngrpc.UnaryServerInterceptor(g, rule)))
	for _, c := range []struct {
		token string
		code  codes.Code
	}{{"partner", codes.OK}, {"ours", codes.PermissionDenied}} {
		ctx, cancel := context.WithTimeout(metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer "+c.token), 10*time.Second)
		var header metadata.MD
		_, err := client.Check(ctx, &healthpb.HealthCheckRequest{}, grpc.Header(&header))
		cancel()
		st := status.Convert(err)
		if st.Code() != c.code || len(header.Get("www-authenticate")) != 0 || strings.Contains(st.Message(), "partner") {
			t.Errorf("%s: %v %q %v, want %v and no challenge", c.token, st.Code(), st.Message(), header, c.code)
		}
	}
}
