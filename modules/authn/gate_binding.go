package authn

import (
	"github.com/svckit/svc/modules/authn/bearer"
)

// certUncheckedDetail is the body's detail of a certificate-bound token
// refused by a gate that checks no certificates.
const certUncheckedDetail = "The token is bound to a client certificate (cnf.x5t#S256) and this resource does not check client certificates (authn.CertificateBound), so it cannot accept it."

// uncheckedBinding refuses a verified token bound to a proof the gate does
// not check: a gate that cannot check a binding must not take the token as
// if it were unbound (RFC 9449 §7.1, RFC 8705 §3), or a stolen bound token
// would work as a bearer token. Without [DPoP], a token bound to a key
// (cnf.jkt, or an introspection token_type of DPoP) is refused as a DPoP
// token is (ReasonTokenType); without [CertificateBound], a token bound to
// a certificate (cnf.x5t#S256) is refused with ReasonCertificateBinding;
// on every gate, a cnf that is not an object or names a confirmation
// method svc does not check (ReasonTokenType). nil to go on.
func (c *gateConfig) uncheckedBinding(p bearer.Principal, b bearer.Binding) *Refusal {
	switch {
	case b.Unchecked, c.dpop == nil && (b.Key != "" || dpopTyped(p)):
		return &Refusal{Kind: KindTokenRejected, Reason: bearer.ReasonTokenType}
	case c.certBound == nil && b.Certificate != "":
		return &Refusal{Kind: KindTokenRejected, Reason: ReasonCertificateBinding, detail: certUncheckedDetail}
	}
	return nil
}
