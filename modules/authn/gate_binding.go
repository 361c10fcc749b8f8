package authn

import (
	"encoding/base64"
	"encoding/json"
	"strings"
)

// certUncheckedDetail is the body's detail of a certificate-bound token
// refused by a gate that checks no certificates.
const certUncheckedDetail = "The token is bound to a client certificate (cnf.x5t#S256) and this resource does not check client certificates (authn.CertificateBound), so it cannot accept it."

// binding is what a verified token's cnf claim (RFC 7800 §3.1) binds it
// to: a DPoP key (cnf.jkt, RFC 9449 §6.1), a client certificate
// (cnf.x5t#S256, RFC 8705 §3.1), or a proof no gate checks. A present
// member is a binding whatever its value: one that is not a well-formed
// SHA-256 thumbprint is unreadableCnf, which no key or certificate
// matches, so a token bound to "" or to garbage is refused and never taken
// as a bearer token.
type binding struct {
	jkt string // "" when the token is bound to no key
	x5t string // "" when the token is bound to no certificate
	// unchecked: a cnf that is not an object, or a confirmation method
	// svc does not check (jwk, jwe, kid, jku, …): the token is bound to
	// a proof no request could give.
	unchecked bool
}

// unreadableCnf is the jkt or x5t of a binding that is not a thumbprint:
// it matches no proof key and no certificate.
const unreadableCnf = "\x00unreadable"

// The members of cnf the gate checks.
const (
	cnfKey         = "jkt"
	cnfCertificate = "x5t#S256"
)

// bindingOf reads p's cnf. A token without cnf (or with an empty one) is
// bound to nothing; any other cnf is a binding, and what it binds to must
// be readable or the token cannot be admitted.
func bindingOf(p Principal) binding {
	if p.Claims == nil {
		return binding{}
	}
	raw, ok := p.Claims.Raw["cnf"]
	if !ok {
		return binding{}
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(raw, &members); err != nil || members == nil {
		// null, a string, an array: bound, to nothing that can be checked.
		return binding{jkt: unreadableCnf, x5t: unreadableCnf, unchecked: true}
	}
	var b binding
	for name, value := range members {
		switch name {
		case cnfKey:
			b.jkt = thumbprintOf(value)
		case cnfCertificate:
			b.x5t = thumbprintOf(value)
		default:
			// A member that differs from one the gate checks only by
			// case is a mistyped binding, not an unrelated claim.
			switch {
			case strings.EqualFold(name, cnfKey):
				b.jkt = unreadableCnf
			case strings.EqualFold(name, cnfCertificate):
				b.x5t = unreadableCnf
			default:
				b.unchecked = true
			}
		}
	}
	return b
}

// thumbprintOf is a cnf member's SHA-256 thumbprint (RFC 7638 for jkt,
// the certificate's for x5t#S256): a JSON string of exactly 43 base64url
// characters without padding, decoding to 32 bytes; unreadableCnf for any
// other value, the empty string and null among them.
func thumbprintOf(value json.RawMessage) string {
	var s string
	if err := json.Unmarshal(value, &s); err != nil || len(s) != 43 {
		return unreadableCnf
	}
	sum, err := base64.RawURLEncoding.Strict().DecodeString(s)
	if err != nil || len(sum) != 32 {
		return unreadableCnf
	}
	return s
}

// boundToAKey reports whether p's cnf.jkt (RFC 9449 §6.1) names a key: a
// well-formed thumbprint, not none and not unreadableCnf.
func boundToAKey(p Principal) bool {
	jkt := bindingOf(p).jkt
	return jkt != "" && jkt != unreadableCnf
}

// uncheckedBinding refuses a verified token bound to a proof the gate does
// not check: a gate that cannot check a binding must not take the token as
// if it were unbound (RFC 9449 §7.1, RFC 8705 §3), or a stolen bound token
// would work as a bearer token. Without [DPoP], a token bound to a key
// (cnf.jkt, or an introspection token_type of DPoP) is refused as a DPoP
// token is (ReasonTokenType); without [CertificateBound], a token bound to
// a certificate (cnf.x5t#S256) is refused with ReasonCertificateBinding;
// on every gate, a cnf that is not an object or names a confirmation
// method svc does not check (ReasonTokenType). nil to go on.
func (c *gateConfig) uncheckedBinding(p Principal, b binding) *Refusal {
	switch {
	case b.unchecked, c.dpop == nil && (b.jkt != "" || dpopTyped(p)):
		return &Refusal{Kind: KindTokenRejected, Reason: ReasonTokenType}
	case c.certBound == nil && b.x5t != "":
		return &Refusal{Kind: KindTokenRejected, Reason: ReasonCertificateBinding, detail: certUncheckedDetail}
	}
	return nil
}
