package bearer

import (
	"encoding/base64"
	"encoding/json"
	"strings"
)

// Binding is what a verified token's cnf claim (RFC 7800 §3.1) binds it
// to: a DPoP key (cnf.jkt, RFC 9449 §6.1), a client certificate
// (cnf.x5t#S256, RFC 8705 §3.1), or a proof nothing checks. A present
// member is a binding whatever its value: one that is not a well-formed
// SHA-256 thumbprint is Unreadable, which no key or certificate matches,
// so a token bound to "" or to garbage is refused by the gate and never
// taken as a bearer token. Principal.Binding reads it.
type Binding struct {
	Key         string // cnf.jkt; "" when the token is bound to no key
	Certificate string // cnf.x5t#S256; "" when bound to no certificate
	// Unchecked: a cnf that is not an object, or a confirmation method
	// svc does not check (jwk, jwe, kid, jku, …): the token is bound to
	// a proof no request could give.
	Unchecked bool
}

// Unreadable is the Key or Certificate of a binding whose member is not a
// thumbprint: it matches no proof key and no certificate.
const Unreadable = "\x00unreadable"

// The members of cnf a gate checks.
const (
	cnfKey         = "jkt"
	cnfCertificate = "x5t#S256"
)

// Binding reads p's cnf. A token without cnf (or with an empty one) is
// bound to nothing; any other cnf is a binding, and what it binds to must
// be readable or the token cannot be admitted.
func (p Principal) Binding() Binding {
	if p.Claims == nil {
		return Binding{}
	}
	raw, ok := p.Claims.Raw["cnf"]
	if !ok {
		return Binding{}
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(raw, &members); err != nil || members == nil {
		// null, a string, an array: bound, to nothing that can be checked.
		return Binding{Key: Unreadable, Certificate: Unreadable, Unchecked: true}
	}
	var b Binding
	for name, value := range members {
		switch name {
		case cnfKey:
			b.Key = thumbprintOf(value)
		case cnfCertificate:
			b.Certificate = thumbprintOf(value)
		default:
			// A member that differs from one the gate checks only by
			// case is a mistyped binding, not an unrelated claim.
			switch {
			case strings.EqualFold(name, cnfKey):
				b.Key = Unreadable
			case strings.EqualFold(name, cnfCertificate):
				b.Certificate = Unreadable
			default:
				b.Unchecked = true
			}
		}
	}
	return b
}

// thumbprintOf is a cnf member's SHA-256 thumbprint (RFC 7638 for jkt,
// the certificate's for x5t#S256): a JSON string of exactly 43 base64url
// characters without padding, decoding to 32 bytes; Unreadable for any
// other value, the empty string and null among them.
func thumbprintOf(value json.RawMessage) string {
	var s string
	if err := json.Unmarshal(value, &s); err != nil || len(s) != 43 {
		return Unreadable
	}
	sum, err := base64.RawURLEncoding.Strict().DecodeString(s)
	if err != nil || len(sum) != 32 {
		return Unreadable
	}
	return s
}

// BoundToAKey reports whether b's cnf.jkt (RFC 9449 §6.1) names a key: a
// well-formed thumbprint, not none and not Unreadable.
func (b Binding) BoundToAKey() bool {
	return b.Key != "" && b.Key != Unreadable
}
