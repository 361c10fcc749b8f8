package oauthclient_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"golang.org/x/oauth2"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	grpcoauth "google.golang.org/grpc/credentials/oauth"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/svckit/svc/internal/testcert"
	"github.com/svckit/svc/modules/oauthclient"
	"github.com/svckit/svc/modules/oauthclient/oauthclienttest"
)

// kitClient is a client of srv, opened, closed when the test ends.
func kitClient(t *testing.T, srv *oauthclienttest.Server) *oauthclient.Client {
	t.Helper()
	c, err := oauthclient.New(srv.ClientOptions()...)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	return c
}

func kitPattern(t *testing.T) (*oauthclienttest.Server, *oauthclient.Pattern) {
	t.Helper()
	srv := oauthclienttest.NewServer(t)
	p, err := oauthclient.ClientCredentials("api", oauthclient.WithClient(kitClient(t, srv)))
	if err != nil {
		t.Fatal(err)
	}
	return srv, p
}

func TestTokenSourceFeedsOAuth2Transport(t *testing.T) {
	srv, p := kitPattern(t)
	var seen []string
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = append(seen, r.Header.Get("Authorization"))
	}))
	defer api.Close()
	hc := oauth2.NewClient(context.Background(), p.TokenSource(context.Background()))
	for range 3 {
		resp, err := hc.Get(api.URL)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	if len(seen) != 3 || seen[0] != "Bearer tok-1" || seen[2] != "Bearer tok-1" {
		t.Fatalf("Authorization headers = %q", seen)
	}
	if len(srv.Requests()) != 1 {
		t.Fatalf("token fetches = %d, want 1: the pattern's cache serves x/oauth2", len(srv.Requests()))
	}
	tok, err := p.TokenSource(context.Background()).Token()
	if err != nil || !tok.Valid() || tok.Expiry.Before(time.Now().Add(50*time.Minute)) {
		t.Fatalf("Token() = %+v, %v", tok, err)
	}
}

func TestTokenSourceReturnsThePatternsErrors(t *testing.T) {
	srv, p := kitPattern(t)
	srv.Fail(oauthclienttest.InvalidClient())
	_, err := p.TokenSource(context.Background()).Token()
	var rej *oauthclient.ClientRejectedError
	if !errors.As(err, &rej) {
		t.Fatalf("Token() error = %v, want *ClientRejectedError", err)
	}
	if _, err := p.TokenSourceFor(context.Background(), "caller").Token(); err == nil {
		t.Fatal("TokenSourceFor on a client-credentials pattern must fail")
	}
}

// Token is safe for concurrent use (x/oauth2's TokenSource contract): many
// callers at once share one fetch and each gets a whole token, with its
// type and expiry.
func TestTokenSourceIsSafeForConcurrentUse(t *testing.T) {
	srv, p := kitPattern(t)
	ts := p.TokenSource(context.Background())
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tok, err := ts.Token()
			if err != nil || tok.AccessToken != "tok-1" || tok.Type() != "Bearer" || tok.Expiry.IsZero() {
				t.Errorf("Token() = %+v, %v", tok, err)
			}
		}()
	}
	wg.Wait()
	if len(srv.Requests()) != 1 {
		t.Fatalf("token fetches = %d, want 1 shared by every caller", len(srv.Requests()))
	}
}

// TokenSourceFor carries the exchanged token on behalf of the caller, and
// TokenSource on an exchange pattern fails: it has no caller to act for.
func TestTokenSourceForExchangesTheCallersToken(t *testing.T) {
	srv := oauthclienttest.NewServer(t)
	p, err := oauthclient.TokenExchange("orders", oauthclient.WithClient(kitClient(t, srv)), oauthclient.Audience("orders-api"))
	if err != nil {
		t.Fatal(err)
	}
	tok, err := p.TokenSourceFor(context.Background(), "caller-token").Token()
	if err != nil || tok.AccessToken != "tok-1" || tok.Expiry.IsZero() {
		t.Fatalf("Token() = %+v, %v", tok, err)
	}
	if f := srv.Requests()[0].Form; f.Get("subject_token") != "caller-token" {
		t.Fatalf("exchange form = %v", f)
	}
	if _, err := p.TokenSource(context.Background()).Token(); !errors.Is(err, oauthclient.ErrCallerTokenRequired) {
		t.Fatalf("TokenSource on an exchange pattern: %v, want ErrCallerTokenRequired", err)
	}
}

// A real gRPC call over TLS on loopback, authenticated by grpc's own
// credentials/oauth.TokenSource fed by the pattern.
func TestTokenSourceCarriesTokensOnGRPC(t *testing.T) {
	_, p := kitPattern(t)
	cert := testcert.SelfSigned(t, testcert.Hosts("127.0.0.1"))
	var got []string
	check := func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
		md, _ := metadata.FromIncomingContext(ctx)
		got = append(got, md.Get("authorization")...)
		if len(md.Get("authorization")) != 1 || md.Get("authorization")[0] != "Bearer tok-1" {
			return nil, status.Error(codes.Unauthenticated, "no token")
		}
		return h(ctx, req)
	}
	gs := grpc.NewServer(grpc.Creds(credentials.NewServerTLSFromCert(&cert)), grpc.UnaryInterceptor(check))
	healthpb.RegisterHealthServer(gs, health.NewServer())
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = gs.Serve(ln) }()
	defer gs.Stop()

	pool := testcert.Pool(cert.Leaf)
	conn, err := grpc.NewClient(ln.Addr().String(),
		grpc.WithTransportCredentials(credentials.NewClientTLSFromCert(pool, "127.0.0.1")),
		grpc.WithPerRPCCredentials(grpcoauth.TokenSource{TokenSource: p.TokenSource(context.Background())}))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{})
	if err != nil {
		t.Fatalf("gRPC call: %v", err)
	}
	if resp.GetStatus() != healthpb.HealthCheckResponse_SERVING || len(got) != 1 {
		t.Fatalf("status %v, authorization seen %q", resp.GetStatus(), got)
	}
}
