package authngrpc_test

import (
	"context"
	"net/http"
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

const (
	watch       = "/grpc.health.v1.Health/Watch"
	acrRequired = `Bearer error="insufficient_user_authentication", error_description="A different authentication level is required", acr_values="phr", max_age="300"`
)

// A step-up is a Require rule With the authn markers: a call short of it
// is Unauthenticated with the RFC 9470 challenge in the www-authenticate
// header metadata, on unary and streaming methods; a claims challenge of
// the check hook reaches the client the same way.
func TestStepUpAndClaimsChallengeOverGRPC(t *testing.T) {
	now := time.Unix(1_900_000_000, 0)
	iss := authntest.NewIssuer(t)
	hook := func(_ context.Context, p bearer.Principal, _ *http.Request) (bearer.Principal, error) {
		if p.Subject == "cae" {
			return bearer.Principal{}, authn.ClaimsChallenge([]byte(`{"access_token":{"xms_cc":{"values":["cp1"]}}}`))
		}
		return p, nil
	}
	g, err := authn.New(iss.Verifier(bearer.Clock(func() time.Time { return now })), authn.Check(hook),
		authn.ClaimsChallengeAuthority("contoso.example", "https://login.example.com/contoso/oauth2/v2.0/authorize"))
	if err != nil {
		t.Fatal(err)
	}
	rules := []authngrpc.Rule{
		authngrpc.Require(check, "health:read").With(authn.RequireACR("phr"), authn.MaxAge(5*time.Minute)),
		authngrpc.Require(watch, "health:read").With(authn.RequireACR("phr"), authn.MaxAge(5*time.Minute)),
	}
	client := serveHealth(t, health.NewServer(), grpc.ChainUnaryInterceptor(authngrpc.UnaryServerInterceptor(g, rules...)))
	streams := serveHealth(t, health.NewServer(), grpc.StreamInterceptor(authngrpc.StreamServerInterceptor(g, rules...)))
	token := func(sub, acr string, age time.Duration, scopes ...string) string {
		return iss.Token(authntest.Subject(sub), authntest.Scopes(scopes...), authntest.Claim("acr", acr),
			authntest.Claim("auth_time", now.Add(-age).Unix()), authntest.Claim("iat", now.Add(-time.Hour).Unix()),
			authntest.Expires(now.Add(time.Hour)))
	}
	cases := []struct {
		name      string
		token     string
		code      codes.Code
		message   string
		challenge string
	}{
		{"strong and fresh", token("alice", "phr", time.Minute, "health:read"), codes.OK, "", ""},
		{"weak acr", token("alice", "pwd", time.Minute, "health:read"), codes.Unauthenticated, "RFC 9470", acrRequired},
		{"old authentication", token("alice", "phr", time.Hour, "health:read"), codes.Unauthenticated, "RFC 9470", acrRequired},
		{"weak acr and no scope", token("alice", "pwd", time.Minute), codes.Unauthenticated, "RFC 9470", acrRequired + `, scope="health:read"`},
		{"strong, no scope", token("alice", "phr", time.Minute), codes.PermissionDenied, "health:read", `Bearer error="insufficient_scope", scope="health:read"`},
		{"claims challenge", token("cae", "phr", time.Minute, "health:read"), codes.Unauthenticated, "claims",
			`Bearer realm="contoso.example", authorization_uri="https://login.example.com/contoso/oauth2/v2.0/authorize", error="insufficient_claims", claims="eyJhY2Nlc3NfdG9rZW4iOnsieG1zX2NjIjp7InZhbHVlcyI6WyJjcDEiXX19fQ=="`},
		{"no token", "", codes.Unauthenticated, "a bearer token is required", `Bearer scope="health:read"`},
	}
	for _, c := range cases {
		for kind, call := range map[string]func(ctx context.Context, header *metadata.MD) error{
			"unary": func(ctx context.Context, header *metadata.MD) error {
				_, err := client.Check(ctx, &healthpb.HealthCheckRequest{}, grpc.Header(header))
				return err
			},
			"stream": func(ctx context.Context, header *metadata.MD) error {
				stream, err := streams.Watch(ctx, &healthpb.HealthCheckRequest{})
				if err != nil {
					return err
				}
				_, err = stream.Recv()
				*header, _ = stream.Header()
				return err
			},
		} {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			if c.token != "" {
				ctx = metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+c.token)
			}
			var header metadata.MD
			err := call(ctx, &header)
			cancel()
			st := status.Convert(err)
			got := strings.Join(header.Get("www-authenticate"), " | ")
			if st.Code() != c.code || !strings.Contains(st.Message(), c.message) || got != c.challenge {
				t.Errorf("%s/%s: %v %q, www-authenticate %q; want %v %q, %q", c.name, kind, st.Code(), st.Message(), got, c.code, c.message, c.challenge)
			}
		}
	}
}

// Rule.With takes the step-up markers only: anything else would run on the
// gate's stand-in request, not on the call.
func TestRuleWithRefusesOtherMiddleware(t *testing.T) {
	for name, mw := range map[string]func(http.Handler) http.Handler{
		"a plain middleware": func(h http.Handler) http.Handler { return h },
		"authn.Require":      authn.Require("x"),
		"authn.Anonymous":    authn.Anonymous,
	} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(r.(string), "authn.RequireACR") {
					t.Errorf("%s: %v", name, r)
				}
			}()
			authngrpc.Require(check).With(mw)
		}()
	}
}
