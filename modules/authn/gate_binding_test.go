package authn_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/svckit/svc/internal/testcert"
	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/authntest"
	svcerrors "github.com/svckit/svc/modules/errors"
)

// A gate that does not check a token's binding refuses the bound token
// rather than take it as a bearer token (RFC 9449 §7.1, RFC 8705 §3): a
// stolen DPoP- or certificate-bound token must not work as a bearer one.
func TestGateRefusesABindingItDoesNotCheck(t *testing.T) {
	ca := testcert.NewCA(t)
	const (
		bearerInvalid = `Bearer error="invalid_token"`
		dpopAlgs      = `DPoP algs="ES256"`
	)
	dpopGate := func(t *testing.T) []authn.Option { return []authn.Option{authn.DPoP(newDPoPVerifier(t), false)} }
	certGate := func(*testing.T) []authn.Option { return []authn.Option{authn.CertificateBound("")} }
	noGate := func(*testing.T) []authn.Option { return nil }
	for _, tc := range []struct {
		name       string
		opts       func(t *testing.T) []authn.Option
		token      string
		status     int
		reason     string
		detail     string // a part of the body's detail
		challenges []string
	}{
		{"key-bound, no DPoP", noGate, "jkt-token", 401, "token-type", "token-type", []string{bearerInvalid}},
		{"unreadable cnf, no DPoP", noGate, "badcnf-token", 401, "token-type", "token-type", []string{bearerInvalid}},
		{"certificate-bound, no CertificateBound", noGate, "cert-token", 401, "certificate-binding", "does not check client certificates (authn.CertificateBound)", []string{bearerInvalid}},
		{"unbound, no DPoP nor CertificateBound", noGate, "alice-token", 200, "", "", nil},
		{"key-bound, CertificateBound only", certGate, "jkt-token", 401, "token-type", "token-type", []string{bearerInvalid}},
		{"certificate-bound, DPoP only", dpopGate, "cert-token", 401, "certificate-binding", "does not check client certificates", []string{bearerInvalid, dpopAlgs}},
		{"key-bound as Bearer, DPoP (unchanged)", dpopGate, "jkt-token", 401, "dpop-required", "DPoP authorization scheme", []string{`DPoP algs="ES256", error="invalid_token"`}},
		{"certificate-bound over plain HTTP, CertificateBound (unchanged)", certGate, "cert-token", 401, "certificate-binding", "did not come with", []string{bearerInvalid}},
		{"unbound, DPoP", dpopGate, "alice-token", 200, "", "", nil},
		{"unbound, CertificateBound", certGate, "alice-token", 200, "", "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := gateServer(t, svcerrors.New(), newPlainChi(), certFake(ca.Client(t, "alice")), tc.opts(t)...)
			got := do(t, srv, "GET", "/me", bearerHeader(tc.token), "")
			if !wantAnswer(t, got, tc.status, tc.challenges, tc.reason) {
				return
			}
			if d, _ := got.json["detail"].(string); !strings.Contains(d, tc.detail) {
				t.Errorf("detail %q, want it to contain %q", d, tc.detail)
			}
			if ct := got.header.Get("Content-Type"); ct != "application/problem+json" {
				t.Errorf("Content-Type %q", ct)
			}
			if strings.Contains(got.body, tc.token) {
				t.Errorf("the body quotes the token: %s", got.body)
			}
		})
	}
}

// The same holds of real JWTs, verified with keys: the reviewer's proof.
func TestGateRefusesBoundJWTsItDoesNotCheck(t *testing.T) {
	iss := authntest.NewIssuer(t)
	srv := gateServer(t, svcerrors.New(), newPlainChi(), iss.Verifier())
	for _, tc := range []struct {
		name   string
		cnf    map[string]string
		status int
		reason string
	}{
		{"DPoP-bound (cnf.jkt)", map[string]string{"jkt": "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I"}, 401, "token-type"},
		{"certificate-bound (cnf.x5t#S256)", map[string]string{"x5t#S256": "bwcK0esc3ACC3DB2Y5_lESsXE8o9ltc05O89jdN-dg2"}, 401, "certificate-binding"},
		{"no cnf", nil, 200, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tok := iss.Token()
			if tc.cnf != nil {
				tok = iss.Token(authntest.Claim("cnf", tc.cnf))
			}
			got := do(t, srv, "GET", "/me", http.Header{"Authorization": {"Bearer " + tok}}, "")
			if got.status != tc.status {
				t.Fatalf("status %d, want %d: %s", got.status, tc.status, got.body)
			}
			if r, _ := got.json["reason"].(string); r != tc.reason {
				t.Fatalf("reason %q, want %q", r, tc.reason)
			}
		})
	}
}
