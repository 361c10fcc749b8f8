package authn_test

import (
	"crypto/tls"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/svckit/svc/internal/dpoptest"
	"github.com/svckit/svc/internal/testcert"
	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/authntest"
)

// hostileCnf are confirmation claims (RFC 7800) a trusted issuer may send
// that bind a token to nothing a request can show. Each is a binding all
// the same: taking the token as a bearer token would let whoever holds it
// in without the key or certificate (issue 37 item 1: an empty
// cnf.x5t#S256 was answered 200 with no client certificate).
var hostileCnf = []struct {
	name string
	cnf  string
	// kind is what the cnf claims to bind: "x5t" (a certificate), "jkt"
	// (a DPoP key) or "other" (something no gate checks).
	kind string
}{
	{"x5t#S256 empty", `{"x5t#S256":""}`, "x5t"},
	{"x5t#S256 null", `{"x5t#S256":null}`, "x5t"},
	{"x5t#S256 a number", `{"x5t#S256":1}`, "x5t"},
	{"x5t#S256 an object", `{"x5t#S256":{}}`, "x5t"},
	{"x5t#S256 not base64url", `{"x5t#S256":"bwcK0esc3ACC3DB2Y5/lESsXE8o9ltc05O89jdN+dg2"}`, "x5t"},
	{"x5t#S256 padded", `{"x5t#S256":"bwcK0esc3ACC3DB2Y5_lESsXE8o9ltc05O89jdN-dg0="}`, "x5t"},
	{"x5t#S256 short", `{"x5t#S256":"bwcK0esc"}`, "x5t"},
	{"x5t#S256 of 48 bytes", `{"x5t#S256":"bwcK0esc3ACC3DB2Y5_lESsXE8o9ltc05O89jdN-dg2bwcK0esc3ACC3DB2Y5_lESsX"}`, "x5t"},
	{"x5t#S256 non-canonical last character", `{"x5t#S256":"bwcK0esc3ACC3DB2Y5_lESsXE8o9ltc05O89jdN-dg3"}`, "x5t"},
	{"X5T#S256 in another case", `{"X5T#S256":"bwcK0esc3ACC3DB2Y5_lESsXE8o9ltc05O89jdN-dg0"}`, "x5t"},
	{"jkt empty", `{"jkt":""}`, "jkt"},
	{"jkt null", `{"jkt":null}`, "jkt"},
	{"jkt short", `{"jkt":"0ZcOCORZNYy"}`, "jkt"},
	{"jkt not base64url", `{"jkt":"0ZcOCORZNYy+DWpqq30jZyJGHTN0d2HglBV3uiguA4I"}`, "jkt"},
	{"jkt 44 characters", `{"jkt":"0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I="}`, "jkt"},
	{"cnf null", `null`, "other"},
	{"cnf a string", `"x"`, "other"},
	{"cnf an array", `[]`, "other"},
	{"cnf.jwk (a method svc does not check)", `{"jwk":{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}}`, "other"},
}

// wantHostileReason is the refusal's reason for a hostile cnf of kind on
// a gate that checks DPoP proofs or not, the token sent as Bearer.
func wantHostileReason(kind string, dpop bool) string {
	switch {
	case kind == "x5t":
		return "certificate-binding"
	case kind == "jkt" && dpop:
		return "dpop-required"
	}
	return "token-type"
}

// A trusted issuer's JWT whose cnf is hostile is refused on every gate,
// with no client certificate and with one: the gate with
// authn.CertificateBound, the one without it (which refuses any
// certificate binding), the one with authn.DPoP, and the one with both.
func TestGateRefusesAHostileCnfOnAJWT(t *testing.T) {
	iss := authntest.NewIssuer(t)
	v := iss.Verifier()
	cert := testcert.NewCA(t).Client(t, "alice")
	for _, gate := range gatesForBindings {
		srv := tlsGate(t, nil, v, gate.options(t)...)
		for _, tc := range hostileCnf {
			t.Run(gate.name+"/"+tc.name, func(t *testing.T) {
				tok := iss.Token(authntest.Claim("cnf", json.RawMessage(tc.cnf)))
				for _, c := range []tls.Certificate{{}, cert} {
					checkHostileRefusal(t, doTLS(t, srv, c, bearerHeader(tok)), tok, wantHostileReason(tc.kind, gate.dpop))
				}
			})
		}
	}
}

// The same cnf in an introspection answer (RFC 7662 §2.2 carries it as a
// JWT does) is refused alike.
func TestGateRefusesAHostileCnfOnAnIntrospectedToken(t *testing.T) {
	for _, gate := range gatesForBindings {
		for _, tc := range hostileCnf {
			t.Run(gate.name+"/"+tc.name, func(t *testing.T) {
				answer := boundAnswer("Bearer", nil)
				answer["cnf"] = json.RawMessage(tc.cnf)
				v, _ := introspectingGateVerifier(t, answerJSON(200, answer))
				srv := tlsGate(t, nil, v, gate.options(t)...)
				got := doTLS(t, srv, tls.Certificate{}, bearerHeader(gateOpaque))
				checkHostileRefusal(t, got, gateOpaque, wantHostileReason(tc.kind, gate.dpop))
			})
		}
	}
}

// A token whose cnf.jkt is no thumbprint, sent with the DPoP scheme and a
// valid proof, is not bound to the proof's key (dpop-binding).
func TestGateRefusesAHostileJKTWithAValidProof(t *testing.T) {
	iss := authntest.NewIssuer(t)
	key := dpoptest.New(t)
	srv := gateServer(t, nil, newPlainChi(), iss.Verifier(), authn.DPoP(newDPoPVerifier(t), false))
	cases := []struct{ name, cnf, kind string }{
		// The start of the proof key's own thumbprint is not its
		// thumbprint (issue 37 item 16).
		{"jkt the first 10 characters of the proof key's thumbprint", `{"jkt":"` + key.JKT[:10] + `"}`, "jkt"},
		{"jkt the proof key's thumbprint less its last character", `{"jkt":"` + key.JKT[:42] + `"}`, "jkt"},
	}
	for _, tc := range append(cases, hostileCnf...) {
		if tc.kind != "jkt" {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			tok := iss.Token(authntest.Claim("cnf", json.RawMessage(tc.cnf)))
			h := http.Header{"Authorization": {"DPoP " + tok}, "Dpop": {key.Proof(t, "GET", srv.URL+"/me", tok, "")}}
			checkHostileRefusal(t, do(t, srv, "GET", "/me", h, ""), tok, "dpop-binding")
		})
	}
}

// The well-formed bindings still admit the request that shows them: the
// checks refuse only what is not a thumbprint.
func TestGateAdmitsWellFormedBindings(t *testing.T) {
	iss := authntest.NewIssuer(t)
	cert := testcert.NewCA(t).Client(t, "alice")
	srv := tlsGate(t, nil, iss.Verifier(), authn.CertificateBound(""))
	tok := iss.Token(authntest.Claim("cnf", map[string]string{"x5t#S256": testcert.Thumbprint(cert.Certificate[0])}))
	if got := doTLS(t, srv, cert, bearerHeader(tok)); got.status != 200 {
		t.Fatalf("certificate-bound, with its certificate: %d %s", got.status, got.body)
	}
	if got := doTLS(t, srv, tls.Certificate{}, bearerHeader(iss.Token(authntest.Claim("cnf", map[string]string{})))); got.status != 200 {
		t.Fatalf("an empty cnf binds to nothing: %d %s", got.status, got.body)
	}
	key := dpoptest.New(t)
	dsrv := gateServer(t, nil, newPlainChi(), iss.Verifier(), authn.DPoP(newDPoPVerifier(t), false))
	tok = iss.Token(authntest.Claim("cnf", map[string]string{"jkt": key.JKT}))
	h := http.Header{"Authorization": {"DPoP " + tok}, "Dpop": {key.Proof(t, "GET", dsrv.URL+"/me", tok, "")}}
	if got := do(t, dsrv, "GET", "/me", h, ""); got.status != 200 {
		t.Fatalf("DPoP-bound, with its key's proof: %d %s", got.status, got.body)
	}
}

// gatesForBindings are the gates a hostile cnf is tried on.
var gatesForBindings = []bindingGate{
	{"no binding checked", false, false},
	{"CertificateBound", false, true},
	{"DPoP", true, false},
	{"DPoP and CertificateBound", true, true},
}

// bindingGate is a gate checking DPoP and/or certificate bindings.
type bindingGate struct {
	name       string
	dpop, cert bool
}

func (g bindingGate) options(t *testing.T) []authn.Option {
	var opts []authn.Option
	if g.dpop {
		opts = append(opts, authn.DPoP(newDPoPVerifier(t), false))
	}
	if g.cert {
		opts = append(opts, authn.CertificateBound(""))
	}
	return opts
}

// checkHostileRefusal holds got to 401 invalid_token with reason, as
// problem+json quoting no token.
func checkHostileRefusal(t *testing.T, got served, token, reason string) {
	t.Helper()
	if got.status != 401 {
		t.Fatalf("status %d, want 401: %s", got.status, got.body)
	}
	if r, _ := got.json["reason"].(string); r != reason {
		t.Errorf("reason %q, want %q: %s", r, reason, got.body)
	}
	if ct := got.header.Get("Content-Type"); ct != "application/problem+json" {
		t.Errorf("Content-Type %q", ct)
	}
	if c := strings.Join(got.header.Values("WWW-Authenticate"), ", "); !strings.Contains(c, `error="invalid_token"`) {
		t.Errorf("WWW-Authenticate %q", c)
	}
	if strings.Contains(got.body, token) {
		t.Errorf("the body quotes the token: %s", got.body)
	}
}
