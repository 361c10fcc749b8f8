package authn_test

import (
	"crypto/tls"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/svckit/svc/internal/dpoptest"
	"github.com/svckit/svc/internal/testcert"
	"github.com/svckit/svc/modules/authn"
	svcerrors "github.com/svckit/svc/modules/errors"
)

// boundAnswer is an introspection answer for an active token bound by
// cnf, of token_type tokenType.
func boundAnswer(tokenType string, cnf map[string]string) map[string]any {
	return map[string]any{"active": true, "iss": gateIssuer, "aud": gateAud, "sub": "alice",
		"exp": time.Now().Add(time.Hour).Unix(), "token_type": tokenType, "cnf": cnf}
}

// Issue 21: an opaque token's introspection answer binds it by its
// cnf.jkt (token_type DPoP, RFC 9449 §6.2) as a JWT's cnf does; a gate
// without DPoP refuses a DPoP token, having no proof to check.
func TestGateDPoPBindsAnIntrospectedToken(t *testing.T) {
	alice, mallory := dpoptest.New(t), dpoptest.New(t)
	answer := boundAnswer("DPoP", map[string]string{"jkt": alice.JKT})
	viaDPoP := func(key *dpoptest.Key, url string) http.Header {
		return http.Header{"Authorization": {"DPoP " + gateOpaque}, "Dpop": {key.Proof(t, "GET", url, gateOpaque, "")}}
	}
	for _, c := range []struct {
		name   string
		dpop   bool
		header func(url string) http.Header
		status int
		reason string
	}{
		{"DPoP with the bound key's proof", true, func(u string) http.Header { return viaDPoP(alice, u) }, 200, ""},
		{"DPoP with another key's proof", true, func(u string) http.Header { return viaDPoP(mallory, u) }, 401, "dpop-binding"},
		{"sent as Bearer (RFC 9449 §7.2)", true, func(string) http.Header { return bearerHeader(gateOpaque) }, 401, "dpop-required"},
		{"a gate without DPoP", false, func(string) http.Header { return bearerHeader(gateOpaque) }, 401, "token-type"},
	} {
		t.Run(c.name, func(t *testing.T) {
			v, _ := introspectingGateVerifier(t, answerJSON(200, answer))
			var opts []authn.Option
			if c.dpop {
				opts = append(opts, authn.DPoP(newDPoPVerifier(t), false))
			}
			srv := gateServer(t, svcerrors.New(), newPlainChi(), v, opts...)
			got := do(t, srv, "GET", "/me", c.header(srv.URL+"/me"), "")
			if got.status != c.status {
				t.Fatalf("status %d, want %d: %s", got.status, c.status, got.body)
			}
			if r, _ := got.json["reason"].(string); r != c.reason {
				t.Fatalf("reason %q, want %q: %s", r, c.reason, got.body)
			}
		})
	}
}

// Issue 21: an introspection answer's cnf.x5t#S256 binds the opaque token
// to the client certificate (RFC 8705 §3) as a JWT's does.
func TestGateCertificateBindsAnIntrospectedToken(t *testing.T) {
	ca := testcert.NewCA(t)
	alice, other := ca.Client(t, "alice"), ca.Client(t, "other")
	answer := boundAnswer("Bearer", map[string]string{"x5t#S256": testcert.Thumbprint(alice.Certificate[0])})
	v, _ := introspectingGateVerifier(t, answerJSON(200, answer))
	srv := tlsGate(t, nil, v, authn.CertificateBound(""))
	if got := doTLS(t, srv, alice, bearerHeader(gateOpaque)); got.status != 200 {
		t.Fatalf("with its certificate: %d %s", got.status, got.body)
	}
	checkCertRefusal(t, doTLS(t, srv, other, bearerHeader(gateOpaque)))
	checkCertRefusal(t, doTLS(t, srv, tls.Certificate{}, bearerHeader(gateOpaque)))
}

// An introspection answer's cnf is held to the gate's checks as a JWT's
// is: a gate without DPoP refuses a key-bound opaque token whatever its
// token_type, one without CertificateBound a certificate-bound one.
func TestGateRefusesAnIntrospectedBindingItDoesNotCheck(t *testing.T) {
	jkt := map[string]string{"jkt": dpoptest.New(t).JKT}
	x5t := map[string]string{"x5t#S256": "bwcK0esc3ACC3DB2Y5_lESsXE8o9ltc05O89jdN-dg2"}
	withoutType := boundAnswer("", jkt)
	delete(withoutType, "token_type")
	for _, c := range []struct {
		name   string
		answer map[string]any
		reason string
		detail string
	}{
		{"cnf.jkt, token_type Bearer", boundAnswer("Bearer", jkt), "token-type", "token-type"},
		{"cnf.jkt, no token_type", withoutType, "token-type", "token-type"},
		{"cnf.x5t#S256", boundAnswer("Bearer", x5t), "certificate-binding", "does not check client certificates"},
	} {
		t.Run(c.name, func(t *testing.T) {
			v, _ := introspectingGateVerifier(t, answerJSON(200, c.answer))
			srv := gateServer(t, svcerrors.New(), newPlainChi(), v)
			got := do(t, srv, "GET", "/me", bearerHeader(gateOpaque), "")
			if got.status != 401 {
				t.Fatalf("status %d, want 401: %s", got.status, got.body)
			}
			if r, _ := got.json["reason"].(string); r != c.reason {
				t.Fatalf("reason %q, want %q: %s", r, c.reason, got.body)
			}
			if d, _ := got.json["detail"].(string); !strings.Contains(d, c.detail) {
				t.Errorf("detail %q", d)
			}
			if h := got.header.Values("WWW-Authenticate"); len(h) != 1 || h[0] != `Bearer error="invalid_token"` {
				t.Errorf("WWW-Authenticate %q", h)
			}
		})
	}
}
