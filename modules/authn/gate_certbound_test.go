package authn_test

import (
	"crypto/sha256"
	"crypto/tls"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/svckit/svc/internal/testcert"
	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/bearer"
	svcerrors "github.com/svckit/svc/modules/errors"
)

// certFake adds to the fake verifier a token bound to cert, one bound to
// a key (cnf.jkt only) and one with an unreadable cnf.
func certFake(cert tls.Certificate) *fakeVerifier {
	f := newFake()
	with := func(cnf string) bearer.Principal {
		return bearer.Principal{Subject: "alice", Issuer: "https://idp.test", Authenticated: true,
			Claims: &bearer.Claims{Raw: map[string]json.RawMessage{"cnf": json.RawMessage(cnf)}}}
	}
	f.callers["cert-token"] = with(`{"x5t#S256":"` + testcert.Thumbprint(cert.Certificate[0]) + `"}`)
	f.callers["jkt-token"] = with(`{"jkt":"0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I"}`)
	f.callers["badcnf-token"] = with(`"x"`)
	return f
}

// tlsGate serves the gate over TLS asking for (not verifying) client
// certificates, as fxsvc.TLSClientCertificates does, behind the telemetry
// wrapper trusting cidrs.
func tlsGate(t *testing.T, cidrs []string, v bearer.Verifier, opts ...authn.Option) *httptest.Server {
	t.Helper()
	g, err := authn.New(v, opts...)
	if err != nil {
		t.Fatal(err)
	}
	h, err := g.Handler(newPlainChi())
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(trusting(t, cidrs, svcerrors.New().Middleware(h)))
	srv.TLS = &tls.Config{ClientAuth: tls.RequestClientCert}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv
}

// doTLS sends GET /me with token over a new connection presenting cert
// (none when it is empty).
func doTLS(t *testing.T, srv *httptest.Server, cert tls.Certificate, header http.Header) served {
	t.Helper()
	client := srv.Client()
	tr := client.Transport.(*http.Transport).Clone()
	tr.DisableKeepAlives = true
	if cert.Certificate != nil {
		tr.TLSClientConfig.Certificates = []tls.Certificate{cert}
	}
	client = &http.Client{Transport: tr, Timeout: 10 * time.Second}
	t.Cleanup(tr.CloseIdleConnections)
	req, err := http.NewRequest("GET", srv.URL+"/me", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header = header
	return send(t, client, req)
}

// checkCertRefusal holds a refusal to 401 invalid_token, reason
// certificate-binding, as problem+json quoting no token.
func checkCertRefusal(t *testing.T, got served) {
	t.Helper()
	if got.status != 401 {
		t.Fatalf("status %d, want 401: %s", got.status, got.body)
	}
	if r, _ := got.json["reason"].(string); r != "certificate-binding" {
		t.Errorf("reason %q: %s", r, got.body)
	}
	if ct := got.header.Get("Content-Type"); ct != "application/problem+json" {
		t.Errorf("Content-Type %q", ct)
	}
	if c := got.header.Values("WWW-Authenticate"); len(c) != 1 || c[0] != `Bearer error="invalid_token"` {
		t.Errorf("WWW-Authenticate %q", c)
	}
	if strings.Contains(got.body, "cert-token") || !strings.Contains(got.body, "certificate") {
		t.Errorf("body %s", got.body)
	}
}

func TestGateCertificateBoundOverTLS(t *testing.T) {
	ca := testcert.NewCA(t)
	alice, mallory := ca.Client(t, "alice"), ca.Client(t, "mallory")
	srv := tlsGate(t, nil, certFake(alice), authn.CertificateBound(""))
	for _, tc := range []struct {
		name   string
		token  string
		cert   tls.Certificate
		status int
	}{
		{"bound token, its certificate", "cert-token", alice, 200},
		{"bound token, another certificate of the same CA", "cert-token", mallory, 401},
		{"bound token, no certificate", "cert-token", tls.Certificate{}, 401},
		{"unreadable cnf", "badcnf-token", alice, 401},
		{"token without cnf, no certificate", "alice-token", tls.Certificate{}, 200},
		{"token without cnf, a certificate", "alice-token", mallory, 200},
		{"token bound to a key only (no DPoP to check it)", "jkt-token", tls.Certificate{}, 401},
		{"expired token, its own reason", "expired-token", alice, 401},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := doTLS(t, srv, tc.cert, bearerHeader(tc.token))
			switch {
			case tc.status == 200 && got.status != 200:
				t.Fatalf("status %d: %s", got.status, got.body)
			case tc.status == 200:
			case tc.token == "expired-token", tc.token == "jkt-token", tc.token == "badcnf-token":
				// A cnf that is not an object binds to nothing any gate
				// checks: token-type, as a binding the gate cannot check.
				want := map[string]string{"expired-token": "expired", "jkt-token": "token-type", "badcnf-token": "token-type"}[tc.token]
				if r, _ := got.json["reason"].(string); got.status != 401 || r != want {
					t.Fatalf("status %d: %s", got.status, got.body)
				}
			default:
				checkCertRefusal(t, got)
			}
		})
	}
}

// Over plain HTTP there is no certificate: a bound token is refused.
func TestGateCertificateBoundWithoutTLS(t *testing.T) {
	ca := testcert.NewCA(t)
	srv := gateServer(t, svcerrors.New(), newPlainChi(), certFake(ca.Client(t, "alice")), authn.CertificateBound(""))
	checkCertRefusal(t, do(t, srv, "GET", "/me", bearerHeader("cert-token"), ""))
	if got := do(t, srv, "GET", "/me", bearerHeader("alice-token"), ""); got.status != 200 {
		t.Fatalf("unbound token: %d %s", got.status, got.body)
	}
}

func TestGateCertificateBoundFromAProxyHeader(t *testing.T) {
	ca := testcert.NewCA(t)
	alice, mallory := ca.Client(t, "alice"), ca.Client(t, "mallory")
	sfBinary := func(c tls.Certificate) string { return ":" + base64.StdEncoding.EncodeToString(c.Certificate[0]) + ":" }
	hash := func(c tls.Certificate) string {
		sum := sha256.Sum256(c.Certificate[0])
		return hex.EncodeToString(sum[:])
	}
	pemOf := func(c tls.Certificate) string {
		return url.PathEscape(string(testcert.CertPEM(c.Certificate[0])))
	}
	trusted, untrusted := []string{"127.0.0.0/8"}, []string{"10.0.0.0/8"}
	for _, tc := range []struct {
		name   string
		header string // the option's
		cidrs  []string
		sent   http.Header
		status int
	}{
		{"Client-Cert from a trusted proxy", "Client-Cert", trusted, http.Header{"Client-Cert": {sfBinary(alice)}}, 200},
		{"header name in any case", "client-cert", trusted, http.Header{"Client-Cert": {sfBinary(alice)}}, 200},
		{"Client-Cert of another certificate", "Client-Cert", trusted, http.Header{"Client-Cert": {sfBinary(mallory)}}, 401},
		{"Client-Cert from an untrusted peer", "Client-Cert", untrusted, http.Header{"Client-Cert": {sfBinary(alice)}}, 401},
		{"Client-Cert without the wrapper (no proxy trusted)", "Client-Cert", nil, http.Header{"Client-Cert": {sfBinary(alice)}}, 401},
		{"Client-Cert without the option", "", trusted, http.Header{"Client-Cert": {sfBinary(alice)}}, 401},
		{"Client-Cert not a byte sequence", "Client-Cert", trusted, http.Header{"Client-Cert": {base64.StdEncoding.EncodeToString(alice.Certificate[0])}}, 401},
		{"Client-Cert base64url, not base64", "Client-Cert", trusted, http.Header{"Client-Cert": {":" + base64.RawURLEncoding.EncodeToString(alice.Certificate[0]) + ":"}}, 401},
		{"Client-Cert twice", "Client-Cert", trusted, http.Header{"Client-Cert": {sfBinary(alice), sfBinary(alice)}}, 401},
		{"Client-Cert empty", "Client-Cert", trusted, http.Header{"Client-Cert": {"::"}}, 401},
		{"no header", "Client-Cert", trusted, http.Header{}, 401},
		{"the other header than the option's", "Client-Cert", trusted, http.Header{"X-Forwarded-Client-Cert": {"Hash=" + hash(alice)}}, 401},
		{"XFCC Hash", "X-Forwarded-Client-Cert", trusted, http.Header{"X-Forwarded-Client-Cert": {`By=spiffe://proxy;Hash=` + hash(alice) + `;Subject="CN=alice,O=x"`}}, 200},
		{"XFCC Cert", "X-Forwarded-Client-Cert", trusted, http.Header{"X-Forwarded-Client-Cert": {`Cert="` + pemOf(alice) + `";Subject="CN=alice"`}}, 200},
		{"XFCC Hash and Cert agreeing", "X-Forwarded-Client-Cert", trusted, http.Header{"X-Forwarded-Client-Cert": {"Hash=" + hash(alice) + `;Cert="` + pemOf(alice) + `"`}}, 200},
		{"XFCC Hash and Cert disagreeing", "X-Forwarded-Client-Cert", trusted, http.Header{"X-Forwarded-Client-Cert": {"Hash=" + hash(alice) + `;Cert="` + pemOf(mallory) + `"`}}, 401},
		{"XFCC the last element counts", "X-Forwarded-Client-Cert", trusted, http.Header{"X-Forwarded-Client-Cert": {"Hash=" + hash(alice) + ",Hash=" + hash(mallory)}}, 401},
		{"XFCC the last element, after a quoted comma", "X-Forwarded-Client-Cert", trusted, http.Header{"X-Forwarded-Client-Cert": {`Hash=` + hash(mallory) + `;Subject="CN=a,O=b",Hash=` + hash(alice)}}, 200},
		{"XFCC Hash of another certificate", "X-Forwarded-Client-Cert", trusted, http.Header{"X-Forwarded-Client-Cert": {"Hash=" + hash(mallory)}}, 401},
		{"XFCC from an untrusted peer", "X-Forwarded-Client-Cert", untrusted, http.Header{"X-Forwarded-Client-Cert": {"Hash=" + hash(alice)}}, 401},
		{"XFCC Hash not hex", "X-Forwarded-Client-Cert", trusted, http.Header{"X-Forwarded-Client-Cert": {"Hash=zz" + hash(alice)[2:]}}, 401},
		{"XFCC Hash too short", "X-Forwarded-Client-Cert", trusted, http.Header{"X-Forwarded-Client-Cert": {"Hash=" + hash(alice)[:62]}}, 401},
		{"XFCC unterminated quote", "X-Forwarded-Client-Cert", trusted, http.Header{"X-Forwarded-Client-Cert": {`Hash=` + hash(alice) + `;Subject="CN=a`}}, 401},
		{"XFCC Cert not PEM", "X-Forwarded-Client-Cert", trusted, http.Header{"X-Forwarded-Client-Cert": {`Cert="not%20pem"`}}, 401},
		{"XFCC Hash twice", "X-Forwarded-Client-Cert", trusted, http.Header{"X-Forwarded-Client-Cert": {"Hash=" + hash(alice) + ";Hash=" + hash(alice)}}, 401},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := gateServerBehind(t, tc.cidrs, svcerrors.New(), newPlainChi(), certFake(alice), authn.CertificateBound(tc.header))
			h := bearerHeader("cert-token")
			for k, v := range tc.sent {
				h[k] = v
			}
			got := do(t, srv, "GET", "/me", h, "")
			if tc.status == 200 {
				if got.status != 200 {
					t.Fatalf("status %d: %s", got.status, got.body)
				}
				return
			}
			checkCertRefusal(t, got)
		})
	}
}

// Behind a trusted proxy that connects over TLS with a certificate of its
// own, the header is the client's certificate, never the proxy's.
func TestGateCertificateBoundTrustsTheHeaderOverTheProxysCertificate(t *testing.T) {
	ca := testcert.NewCA(t)
	proxy := ca.Client(t, "proxy")
	srv := tlsGate(t, []string{"127.0.0.0/8"}, certFake(proxy), authn.CertificateBound("Client-Cert"))
	checkCertRefusal(t, doTLS(t, srv, proxy, bearerHeader("cert-token")))
}

func TestCertificateBoundRefusesAnotherHeader(t *testing.T) {
	_, err := authn.New(newFake(), authn.CertificateBound("X-Client-Cert"))
	if err == nil || !strings.Contains(err.Error(), "CertificateBound") || !strings.Contains(err.Error(), "Client-Cert") {
		t.Fatalf("%v", err)
	}
}

// A refusal is recorded and counted as any token rejection.
func TestGateCertificateBindingRecordAndMetric(t *testing.T) {
	m := installMetrics(t)
	ca := testcert.NewCA(t)
	o := observedGate(t, newPlainChi(), certFake(ca.Client(t, "alice")), authn.CertificateBound(""))
	do(t, o.srv, "GET", "/me", bearerHeader("cert-token"), "")
	recs := o.security()
	if len(recs) != 1 || recs[0].ContextMap()["error.type"] != "certificate-binding" {
		t.Fatalf("records %v", recs)
	}
	s := attribute.String
	if n := m.sum(t, "svc.authentication.attempts", s("svc.outcome", "refused"), s("error.type", "certificate-binding")); n != 1 {
		t.Fatalf("counted %d", n)
	}
}
