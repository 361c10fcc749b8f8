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
	"github.com/svckit/svc/modules/authn/bearer"
)

// A role over gRPC: authngrpc.RequireRole, or a Require rule With
// authn.RequireRole, admits a caller holding the role (an Okta groups
// claim here) and refuses one lacking it PermissionDenied, naming the
// missing role and not the token's groups, with no challenge; a caller
// also short of the scope hears about the scope.
func TestRequireRoleOverGRPC(t *testing.T) {
	iss := authntest.NewIssuer(t)
	g, err := authn.New(iss.Verifier(bearer.Profile(bearer.Okta())))
	if err != nil {
		t.Fatal(err)
	}
	client := serveHealth(t, health.NewServer(), grpc.ChainUnaryInterceptor(authngrpc.UnaryServerInterceptor(g,
		authngrpc.RequireRole(check, "health-admin"))))
	scoped := serveHealth(t, health.NewServer(), grpc.ChainUnaryInterceptor(authngrpc.UnaryServerInterceptor(g,
		authngrpc.Require(check, "health:read").With(authn.RequireRole("health-admin")))))
	token := func(groups []string, scopes ...string) string {
		return iss.Token(authntest.Scopes(scopes...), authntest.Claim("cid", "0oa-client"), authntest.Claim("groups", groups))
	}
	for _, c := range []struct {
		name, token string
		code        codes.Code
		message     string
	}{
		{"role held", token([]string{"Everyone", "health-admin"}), codes.OK, ""},
		{"role missing", token([]string{"Everyone", "secret-group"}), codes.PermissionDenied, "the caller lacks a role this method requires: health-admin"},
		{"no groups", token(nil), codes.PermissionDenied, "health-admin"},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		ctx = metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+c.token)
		var header metadata.MD
		_, err := client.Check(ctx, &healthpb.HealthCheckRequest{}, grpc.Header(&header))
		cancel()
		st := status.Convert(err)
		if st.Code() != c.code || !strings.Contains(st.Message(), c.message) || strings.Contains(st.Message(), "secret-group") ||
			strings.Contains(st.Message(), "Everyone") || len(header.Get("www-authenticate")) != 0 {
			t.Errorf("%s: %v %q %v; want %v %q", c.name, st.Code(), st.Message(), header, c.code, c.message)
		}
	}
	// The scope and the role on one rule: the scope is judged first.
	for _, c := range []struct {
		token, message string
		code           codes.Code
	}{
		{token([]string{"Everyone"}), "lacks a required scope: health:read", codes.PermissionDenied},
		{token([]string{"Everyone"}, "health:read"), "lacks a role this method requires: health-admin", codes.PermissionDenied},
		{token([]string{"health-admin"}, "health:read"), "", codes.OK},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		ctx = metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+c.token)
		_, err := scoped.Check(ctx, &healthpb.HealthCheckRequest{})
		cancel()
		if st := status.Convert(err); st.Code() != c.code || !strings.Contains(st.Message(), c.message) {
			t.Errorf("scoped: %v %q, want %v %q", st.Code(), st.Message(), c.code, c.message)
		}
	}
}
