package authngrpc_test

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
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
	check = "/grpc.health.v1.Health/Check"
	list  = "/grpc.health.v1.Health/List"
)

// spy is a health server that remembers who called.
type spy struct {
	*health.Server
	subject chan string
}

func (s *spy) Check(ctx context.Context, req *healthpb.HealthCheckRequest) (*healthpb.HealthCheckResponse, error) {
	p, _ := authn.PrincipalFrom(ctx)
	s.subject <- p.Subject
	return s.Server.Check(ctx, req)
}

func startServer(t *testing.T, g *authn.Gate, rules ...authngrpc.Rule) (healthpb.HealthClient, *spy) {
	t.Helper()
	sp := &spy{Server: health.NewServer(), subject: make(chan string, 1)}
	return serveHealth(t, sp, grpc.UnaryInterceptor(authngrpc.UnaryServerInterceptor(g, rules...))), sp
}

// serveHealth serves srv on a loopback port with opt until the test ends
// and returns a client of it.
func serveHealth(t *testing.T, srv healthpb.HealthServer, opt grpc.ServerOption) healthpb.HealthClient {
	t.Helper()
	gs := grpc.NewServer(opt)
	healthpb.RegisterHealthServer(gs, srv)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = gs.Serve(ln) }()
	t.Cleanup(gs.Stop)
	conn, err := grpc.NewClient(ln.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return healthpb.NewHealthClient(conn)
}

func TestUnaryInterceptorJudgesCallsLikeTheGate(t *testing.T) {
	iss := authntest.NewIssuer(t)
	g, err := authn.New(iss.Verifier())
	if err != nil {
		t.Fatal(err)
	}
	core, logs := observer.New(zap.InfoLevel)
	g.SetLogger(zap.New(core))
	client, sp := startServer(t, g, authngrpc.Require(check, "health:read"), authngrpc.Anonymous(list))

	reader := iss.Token(authntest.Subject("alice"), authntest.Scopes("health:read"))
	other := iss.Token(authntest.Scopes("other"))
	forged := reader[:len(reader)-4] + "AAAA"
	cases := []struct {
		name    string
		method  string
		tokens  []string
		code    codes.Code
		message string
	}{
		{"scoped method, right scope", check, []string{reader}, codes.OK, ""},
		{"scoped method, no token", check, nil, codes.Unauthenticated, "a bearer token is required"},
		{"scoped method, forged token", check, []string{forged}, codes.Unauthenticated, "rejected"},
		{"scoped method, missing scope", check, []string{other}, codes.PermissionDenied, "health:read"},
		{"two tokens", check, []string{reader, reader}, codes.InvalidArgument, "exactly one"},
		{"anonymous method, no token", list, nil, codes.OK, ""},
		{"anonymous method, forged token", list, []string{forged}, codes.Unauthenticated, "rejected"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			md := metadata.MD{}
			for _, tok := range c.tokens {
				md.Append("authorization", "Bearer "+tok)
			}
			ctx, cancel := context.WithTimeout(metadata.NewOutgoingContext(context.Background(), md), 10*time.Second)
			defer cancel()
			var err error
			if c.method == check {
				_, err = client.Check(ctx, &healthpb.HealthCheckRequest{})
			} else {
				_, err = client.List(ctx, &healthpb.HealthListRequest{})
			}
			st := status.Convert(err)
			if st.Code() != c.code || !strings.Contains(st.Message(), c.message) {
				t.Fatalf("status = %v %q, want %v containing %q", st.Code(), st.Message(), c.code, c.message)
			}
			for _, tok := range c.tokens {
				if strings.Contains(st.Message(), tok[:20]) {
					t.Fatalf("the status echoes the token: %q", st.Message())
				}
			}
			if c.method == check && c.code == codes.OK {
				if sub := <-sp.subject; sub != "alice" {
					t.Fatalf("handler saw subject %q, want alice", sub)
				}
			}
		})
	}
	var forgedRecord bool
	for _, e := range logs.All() {
		f := e.ContextMap()
		if f["error.type"] == "signature" && f["http.route"] == check {
			forgedRecord = true
		}
	}
	if !forgedRecord {
		t.Fatalf("no security record of the forged token naming %s: %v", check, logs.All())
	}
}

func TestUnaryInterceptorAnswersUnavailableWithoutKeys(t *testing.T) {
	g, err := authn.New(bearer.New("http://127.0.0.1:1", "aud"))
	if err != nil {
		t.Fatal(err)
	}
	client, _ := startServer(t, g)
	ctx := metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer eyJhbGciOiJFUzI1NiJ9.e30.c2ln")
	_, err = client.Check(ctx, &healthpb.HealthCheckRequest{})
	if status.Code(err) != codes.Unavailable {
		t.Fatalf("status = %v, want Unavailable while no keys are held", err)
	}
}

func TestInvalidRulePanics(t *testing.T) {
	iss := authntest.NewIssuer(t)
	g, _ := authn.New(iss.Verifier())
	defer func() {
		if recover() == nil {
			t.Fatal("a method name without a leading slash must panic")
		}
	}()
	authngrpc.UnaryServerInterceptor(g, authngrpc.Require("grpc.health.v1.Health/Check"))
}

func TestStreamInterceptorAuthenticatesWhenTheStreamOpens(t *testing.T) {
	iss := authntest.NewIssuer(t)
	g, _ := authn.New(iss.Verifier())
	hs := health.NewServer()
	client := serveHealth(t, hs, grpc.StreamInterceptor(authngrpc.StreamServerInterceptor(g)))
	for _, c := range []struct {
		token string
		code  codes.Code
	}{{"", codes.Unauthenticated}, {iss.Token(), codes.OK}} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		if c.token != "" {
			ctx = metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+c.token)
		}
		stream, err := client.Watch(ctx, &healthpb.HealthCheckRequest{})
		if err == nil {
			_, err = stream.Recv()
		}
		cancel()
		if status.Code(err) != c.code {
			t.Fatalf("token %t: status = %v, want %v", c.token != "", err, c.code)
		}
	}
}

// A method (or service, or "/") named by two rules is refused when the
// interceptor is built, as a router refuses a route registered twice:
// neither rule silently wins.
func TestRuleNamedTwicePanics(t *testing.T) {
	iss := authntest.NewIssuer(t)
	g, _ := authn.New(iss.Verifier())
	cases := map[string][]authngrpc.Rule{
		"required and anonymous": {authngrpc.Require(check, "health:read"), authngrpc.Anonymous(check)},
		"two scope sets":         {authngrpc.Require(check, "a"), authngrpc.Require(check, "b")},
		"a service twice":        {authngrpc.Anonymous("/grpc.health.v1.Health/"), authngrpc.Require("/grpc.health.v1.Health/")},
		"the root twice":         {authngrpc.Require("/"), authngrpc.Anonymous("/")},
	}
	for name, rules := range cases {
		for kind, build := range map[string]func(){
			"unary":  func() { authngrpc.UnaryServerInterceptor(g, rules...) },
			"stream": func() { authngrpc.StreamServerInterceptor(g, rules...) },
		} {
			t.Run(name+"/"+kind, func(t *testing.T) {
				defer func() {
					if recover() == nil {
						t.Fatal("a rule named twice must panic")
					}
				}()
				build()
			})
		}
	}
}

// A scoped streaming method refuses a token without the scope, and the
// stream's handler sees the admitted caller.
func TestStreamInterceptorEnforcesScopes(t *testing.T) {
	const watch = "/grpc.health.v1.Health/Watch"
	iss := authntest.NewIssuer(t)
	g, _ := authn.New(iss.Verifier())
	client := serveHealth(t, health.NewServer(), grpc.StreamInterceptor(authngrpc.StreamServerInterceptor(g, authngrpc.Require(watch, "health:watch"))))
	for _, c := range []struct {
		scopes []string
		code   codes.Code
	}{{[]string{"health:read"}, codes.PermissionDenied}, {[]string{"health:watch"}, codes.OK}} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		ctx = metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+iss.Token(authntest.Scopes(c.scopes...)))
		stream, err := client.Watch(ctx, &healthpb.HealthCheckRequest{})
		if err == nil {
			_, err = stream.Recv()
		}
		cancel()
		if status.Code(err) != c.code {
			t.Fatalf("scopes %v: status = %v, want %v", c.scopes, err, c.code)
		}
		if c.code == codes.PermissionDenied && !strings.Contains(status.Convert(err).Message(), "health:watch") {
			t.Fatalf("refusal %q does not name the scope", status.Convert(err).Message())
		}
	}
}
