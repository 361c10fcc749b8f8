package authngrpc_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/svckit/svc/internal/dpoptest"
	"github.com/svckit/svc/internal/testcert"
	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/authngrpc"
	"github.com/svckit/svc/modules/authn/authntest"
	"github.com/svckit/svc/modules/authn/dpop"
)

// listen returns a loopback listener and the address a client dials.
func listen(t *testing.T) (net.Listener, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return ln, ln.Addr().String()
}

// serve serves a health server on ln with opts until the test ends and
// returns a client dialled with creds.
func serve(t *testing.T, ln net.Listener, creds credentials.TransportCredentials, opts ...grpc.ServerOption) healthpb.HealthClient {
	t.Helper()
	gs := grpc.NewServer(opts...)
	healthpb.RegisterHealthServer(gs, health.NewServer())
	go func() { _ = gs.Serve(ln) }()
	t.Cleanup(gs.Stop)
	conn, err := grpc.NewClient(ln.Addr().String(), grpc.WithTransportCredentials(creds))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return healthpb.NewHealthClient(conn)
}

// dpopGate is a gate of iss's tokens taking DPoP (requiring it with
// required), its proofs checked with opts.
func dpopGate(t *testing.T, iss *authntest.Issuer, required bool, opts ...dpop.Option) *authn.Gate {
	t.Helper()
	v, err := dpop.New(opts...)
	if err != nil {
		t.Fatal(err)
	}
	g, err := authn.New(iss.Verifier(), authn.DPoP(v, required))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// servePlain serves g's unary interceptor with rules over plaintext and
// returns a client and the address it dials.
func servePlain(t *testing.T, g *authn.Gate, rules ...authngrpc.Rule) (healthpb.HealthClient, string) {
	t.Helper()
	ln, addr := listen(t)
	return serve(t, ln, insecure.NewCredentials(), grpc.UnaryInterceptor(authngrpc.UnaryServerInterceptor(g, rules...))), addr
}

// call calls Check with md, returning the status and the header metadata.
func call(t *testing.T, client healthpb.HealthClient, md metadata.MD) (*status.Status, metadata.MD) {
	t.Helper()
	ctx, cancel := context.WithTimeout(metadata.NewOutgoingContext(context.Background(), md), 10*time.Second)
	defer cancel()
	var header metadata.MD
	_, err := client.Check(ctx, &healthpb.HealthCheckRequest{}, grpc.Header(&header))
	return status.Convert(err), header
}

// Issue 21: a DPoP-bound token reaches a method with a proof in the dpop
// metadata whose htu is the call's URL as the client forms it; every
// refusal is Unauthenticated with the DPoP challenge in www-authenticate.
func TestDPoPOverGRPC(t *testing.T) {
	iss := authntest.NewIssuer(t)
	alice, mallory := dpoptest.New(t), dpoptest.New(t)
	client, addr := servePlain(t, dpopGate(t, iss, false))
	htu := "http://" + addr + check
	bound := iss.Token(authntest.Claim("cnf", map[string]string{"jkt": alice.JKT}))
	plain := iss.Token()
	const (
		invalidProof = `DPoP algs="ES256", error="invalid_dpop_proof"`
		invalidToken = `DPoP algs="ES256", error="invalid_token"`
	)
	replayed := alice.Proof(t, "POST", htu, bound, "")
	if st, _ := call(t, client, metadata.Pairs("authorization", "DPoP "+bound, "dpop", replayed)); st.Code() != codes.OK {
		t.Fatalf("first use of a proof: %v", st)
	}
	for _, c := range []struct {
		name       string
		md         metadata.MD
		code       codes.Code
		message    string
		challenges []string
	}{
		{"bound token, good proof", metadata.Pairs("authorization", "DPoP "+bound, "dpop", alice.Proof(t, "POST", htu, bound, "")), codes.OK, "", nil},
		{"scheme in capitals, query and fragment ignored", metadata.Pairs("authorization", "DPoP "+bound, "dpop", alice.Proof(t, "POST", "HTTP://"+addr+check+"?q#f", bound, "")), codes.OK, "", nil},
		{"unbound token as Bearer", metadata.Pairs("authorization", "Bearer "+plain), codes.OK, "", nil},
		{"replayed proof", metadata.Pairs("authorization", "DPoP "+bound, "dpop", replayed), codes.Unauthenticated, "DPoP proof was refused", []string{invalidProof}},
		{"no proof", metadata.Pairs("authorization", "DPoP "+bound), codes.Unauthenticated, "DPoP proof was refused", []string{invalidProof}},
		{"two proofs", metadata.Pairs("authorization", "DPoP "+bound, "dpop", alice.Proof(t, "POST", htu, bound, ""), "dpop", alice.Proof(t, "POST", htu, bound, "")),
			codes.Unauthenticated, "DPoP proof was refused", []string{invalidProof}},
		{"htm GET", metadata.Pairs("authorization", "DPoP "+bound, "dpop", alice.Proof(t, "GET", htu, bound, "")), codes.Unauthenticated, "DPoP proof was refused", []string{invalidProof}},
		{"htu https on a plaintext connection", metadata.Pairs("authorization", "DPoP "+bound, "dpop", alice.Proof(t, "POST", "https://"+addr+check, bound, "")),
			codes.Unauthenticated, "DPoP proof was refused", []string{invalidProof}},
		{"htu another method", metadata.Pairs("authorization", "DPoP "+bound, "dpop", alice.Proof(t, "POST", "http://"+addr+list, bound, "")),
			codes.Unauthenticated, "DPoP proof was refused", []string{invalidProof}},
		{"htu another authority", metadata.Pairs("authorization", "DPoP "+bound, "dpop", alice.Proof(t, "POST", "http://grpc"+check, bound, "")),
			codes.Unauthenticated, "DPoP proof was refused", []string{invalidProof}},
		{"proof by another key", metadata.Pairs("authorization", "DPoP "+bound, "dpop", mallory.Proof(t, "POST", htu, bound, "")),
			codes.Unauthenticated, "access token was rejected", []string{invalidToken}},
		{"bound token as Bearer (RFC 9449 §7.2)", metadata.Pairs("authorization", "Bearer "+bound),
			codes.Unauthenticated, "access token was rejected", []string{invalidToken}},
		{"no token", nil, codes.Unauthenticated, "required", []string{"Bearer", `DPoP algs="ES256"`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			st, header := call(t, client, c.md)
			if st.Code() != c.code || !strings.Contains(st.Message(), c.message) {
				t.Fatalf("status = %v %q, want %v containing %q", st.Code(), st.Message(), c.code, c.message)
			}
			got := header.Get("www-authenticate")
			if len(got) != len(c.challenges) {
				t.Fatalf("www-authenticate = %q, want %q", got, c.challenges)
			}
			for i, want := range c.challenges {
				if !strings.HasPrefix(got[i], want) {
					t.Fatalf("www-authenticate = %q, want %q", got, c.challenges)
				}
			}
			if strings.Contains(st.Message(), bound[:20]) {
				t.Fatalf("the status echoes the token: %q", st.Message())
			}
		})
	}
}

// A gate requiring the server's nonce answers a proof without it
// use_dpop_nonce with the nonce in the dpop-nonce metadata; a proof with
// that nonce is admitted.
func TestDPoPNonceOverGRPC(t *testing.T) {
	iss := authntest.NewIssuer(t)
	alice := dpoptest.New(t)
	nonces, err := dpop.NewNonceSource([]byte(strings.Repeat("s", 32)), time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	client, addr := servePlain(t, dpopGate(t, iss, true, dpop.RequireNonce(nonces)))
	htu := "http://" + addr + check
	bound := iss.Token(authntest.Claim("cnf", map[string]string{"jkt": alice.JKT}))

	st, header := call(t, client, metadata.Pairs("authorization", "DPoP "+bound, "dpop", alice.Proof(t, "POST", htu, bound, "")))
	if st.Code() != codes.Unauthenticated || !strings.Contains(st.Message(), "nonce") {
		t.Fatalf("status = %v, want Unauthenticated asking for the nonce", st)
	}
	if got := header.Get("www-authenticate"); len(got) != 1 || got[0] != `DPoP algs="ES256", error="use_dpop_nonce"` {
		t.Fatalf("www-authenticate = %q, want use_dpop_nonce", got)
	}
	nonce := header.Get("dpop-nonce")
	if len(nonce) != 1 || nonce[0] != nonces.Current() {
		t.Fatalf("dpop-nonce = %q, want %q", nonce, nonces.Current())
	}
	st, _ = call(t, client, metadata.Pairs("authorization", "DPoP "+bound, "dpop", alice.Proof(t, "POST", htu, bound, nonce[0])))
	if st.Code() != codes.OK {
		t.Fatalf("proof with the nonce: %v", st)
	}
}

// tlsFixture is a server certificate for 127.0.0.1 and two client
// certificates of one CA.
type tlsFixture struct {
	server       tls.Certificate
	roots        *x509.CertPool
	alice, other tls.Certificate
}

func newTLSFixture(t *testing.T) *tlsFixture {
	t.Helper()
	ca := testcert.NewCA(t)
	return &tlsFixture{server: ca.Server(t, testcert.Hosts("127.0.0.1")), roots: testcert.Pool(ca.Cert),
		alice: ca.Client(t, "alice"), other: ca.Client(t, "other")}
}

// client dials the fixture's server presenting cert (none when empty).
func (f *tlsFixture) client(cert tls.Certificate) credentials.TransportCredentials {
	c := &tls.Config{RootCAs: f.roots, MinVersion: tls.VersionTLS12}
	if cert.Certificate != nil {
		c.Certificates = []tls.Certificate{cert}
	}
	return credentials.NewTLS(c)
}

// Issue 21: over a TLS connection, a certificate-bound token is admitted
// with its certificate only (RFC 8705 §3), read from the gRPC peer's TLS
// state; and a DPoP proof's htu is https.
func TestCertificateBindingAndDPoPOverGRPCWithTLS(t *testing.T) {
	iss := authntest.NewIssuer(t)
	f := newTLSFixture(t)
	key := dpoptest.New(t)
	v, err := dpop.New()
	if err != nil {
		t.Fatal(err)
	}
	g, err := authn.New(iss.Verifier(), authn.CertificateBound(""), authn.DPoP(v, false))
	if err != nil {
		t.Fatal(err)
	}
	server := credentials.NewTLS(&tls.Config{Certificates: []tls.Certificate{f.server}, ClientAuth: tls.RequestClientCert, MinVersion: tls.VersionTLS12})
	certBound := iss.Token(authntest.Claim("cnf", map[string]string{"x5t#S256": testcert.Thumbprint(f.alice.Certificate[0])}))
	keyBound := iss.Token(authntest.Claim("cnf", map[string]string{"jkt": key.JKT}))
	const rejected = `Bearer error="invalid_token"`
	for _, c := range []struct {
		name      string
		cert      tls.Certificate
		md        func(addr string) metadata.MD
		code      codes.Code
		challenge string
	}{
		{"bound token, its certificate", f.alice, func(string) metadata.MD { return metadata.Pairs("authorization", "Bearer "+certBound) }, codes.OK, ""},
		{"bound token, another certificate", f.other, func(string) metadata.MD { return metadata.Pairs("authorization", "Bearer "+certBound) }, codes.Unauthenticated, rejected},
		{"bound token, no certificate", tls.Certificate{}, func(string) metadata.MD { return metadata.Pairs("authorization", "Bearer "+certBound) }, codes.Unauthenticated, rejected},
		{"unbound token, no certificate", tls.Certificate{}, func(string) metadata.MD { return metadata.Pairs("authorization", "Bearer "+iss.Token()) }, codes.OK, ""},
		{"DPoP proof, htu https", tls.Certificate{}, func(addr string) metadata.MD {
			return metadata.Pairs("authorization", "DPoP "+keyBound, "dpop", key.Proof(t, "POST", "https://"+addr+check, keyBound, ""))
		}, codes.OK, ""},
		{"DPoP proof, htu http over TLS", tls.Certificate{}, func(addr string) metadata.MD {
			return metadata.Pairs("authorization", "DPoP "+keyBound, "dpop", key.Proof(t, "POST", "http://"+addr+check, keyBound, ""))
		}, codes.Unauthenticated, `DPoP algs="ES256", error="invalid_dpop_proof"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			// A connection per case: the client certificate is the
			// connection's.
			ln, addr := listen(t)
			client := serve(t, ln, f.client(c.cert), grpc.Creds(server), grpc.UnaryInterceptor(authngrpc.UnaryServerInterceptor(g)))
			st, header := call(t, client, c.md(addr))
			if st.Code() != c.code {
				t.Fatalf("status = %v, want %v", st, c.code)
			}
			if got := header.Get("www-authenticate"); c.challenge != "" && (len(got) == 0 || !strings.HasPrefix(got[0], c.challenge)) {
				t.Fatalf("www-authenticate = %q, want %q first", got, c.challenge)
			}
		})
	}
}

// Rule.With(authn.RequireDPoP) requires DPoP on one method while the
// others take Bearer; with a gate that takes no DPoP the interceptor
// refuses to be built.
func TestRequireDPoPOnOneMethod(t *testing.T) {
	iss := authntest.NewIssuer(t)
	key := dpoptest.New(t)
	client, addr := servePlain(t, dpopGate(t, iss, false), authngrpc.Require(check).With(authn.RequireDPoP))
	bound := iss.Token(authntest.Claim("cnf", map[string]string{"jkt": key.JKT}))
	plain := iss.Token()

	st, header := call(t, client, metadata.Pairs("authorization", "Bearer "+plain))
	if st.Code() != codes.Unauthenticated || !strings.Contains(st.Message(), "DPoP") {
		t.Fatalf("Bearer on a method requiring DPoP: %v", st)
	}
	if got := header.Get("www-authenticate"); len(got) != 1 || got[0] != `DPoP algs="ES256", error="invalid_token"` {
		t.Fatalf("www-authenticate = %q", got)
	}
	if st, _ := call(t, client, metadata.Pairs("authorization", "DPoP "+bound, "dpop", key.Proof(t, "POST", "http://"+addr+check, bound, ""))); st.Code() != codes.OK {
		t.Fatalf("DPoP on a method requiring it: %v", st)
	}
	ctx, cancel := context.WithTimeout(metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer "+plain), 10*time.Second)
	defer cancel()
	if _, err := client.List(ctx, &healthpb.HealthListRequest{}); err != nil {
		t.Fatalf("Bearer on another method: %v", err)
	}

	plainGate, err := authn.New(iss.Verifier())
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "authn.DPoP") {
			t.Fatalf("recover() = %v, want a panic naming authn.DPoP", r)
		}
	}()
	authngrpc.UnaryServerInterceptor(plainGate, authngrpc.Require(check).With(authn.RequireDPoP))
}
