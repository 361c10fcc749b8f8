package authn

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"go.uber.org/zap"

	"github.com/svckit/svc/modules/authn/bearer"
	"github.com/svckit/svc/modules/authn/dpop"
	svcerrors "github.com/svckit/svc/modules/errors"
)

// The reason words of DPoP refusals (RFC 9449), beside the token's own.
const (
	// ReasonDPoPProof: the request's DPoP proof was refused (for any
	// reason but the nonce's): challenge error="invalid_dpop_proof".
	ReasonDPoPProof bearer.Reason = "dpop-proof"
	// ReasonDPoPNonce: the proof lacks the server's current nonce; the
	// answer carries the nonce to use in DPoP-Nonce (error="use_dpop_nonce").
	ReasonDPoPNonce bearer.Reason = "dpop-nonce"
	// ReasonDPoPBinding: a token sent with the DPoP scheme is bound to no
	// key (no cnf.jkt), or to another key than the proof's.
	ReasonDPoPBinding bearer.Reason = "dpop-binding"
	// ReasonDPoPRequired: a token was sent as Bearer that is bound to a key
	// (cnf.jkt; RFC 9449 §7.2), or the gate requires DPoP.
	ReasonDPoPRequired bearer.Reason = "dpop-required"
)

// DPoP makes the gate accept access tokens sent with the DPoP
// authorization scheme (RFC 9449 §7.1) beside Bearer, their proofs checked
// by v, and the token's cnf.jkt compared with the proof key's thumbprint.
// A token bound to a key (cnf.jkt) sent as Bearer is refused (§7.2). With
// required, every token must come with the DPoP scheme. Challenges then
// name the DPoP scheme with algs=, and, unless required, Bearer too.
//
// The binding is read from the token's cnf.jkt, a JWT's or an
// introspection answer's (token_type DPoP); a verifier that fills no
// Claims (a custom one) binds no token. A gate without DPoP refuses a
// token bound to a key (cnf.jkt, or a cnf that is not an object) and one
// its issuer's introspection calls DPoP (ReasonTokenType): it has no
// proof to check, and must not take such a token as a bearer token.
// Websocket handshakes are held to it as any request, and gRPC calls
// through authngrpc (the proof in the `dpop` metadata).
func DPoP(v *dpop.Verifier, required bool) Option {
	return func(c *gateConfig) {
		if v != nil {
			c.dpop = &dpopPolicy{v: v, required: required, algs: strings.Join(v.AllowedAlgorithms(), " ")}
		}
	}
}

type dpopPolicy struct {
	v        *dpop.Verifier
	required bool
	algs     string
}

// dpopChallenge is the DPoP challenge a refusal carries.
type dpopChallenge struct {
	algs      string
	code      string // the error parameter, "" for none
	nonce     string // DPoP-Nonce to send
	bearerToo bool   // the Bearer challenge is sent as well
	// proof is the reason a proof was refused (ReasonDPoPProof), for
	// the security record's svc.dpop.reason.
	proof string
}

// credential reads the request's token: with the DPoP scheme when the
// gate takes it (viaDPoP), else as readCredential does.
func (g *Gate) credential(r *http.Request) (token string, viaDPoP bool, ref *Refusal) {
	if values := r.Header["Authorization"]; g.cfg.dpop != nil && len(values) == 1 {
		v := strings.TrimLeft(values[0], " \t")
		scheme, rest, _ := strings.Cut(v, " ")
		if strings.EqualFold(scheme, "DPoP") {
			token = strings.Trim(rest, " \t")
			switch {
			case r.URL.RawQuery != "" && r.URL.Query().Has("access_token"):
				return "", true, &Refusal{Kind: KindAmbiguousCredentials}
			case token == "":
				return "", true, malformedCredential()
			}
			return token, true, nil
		}
	}
	token, ref = readCredential(r)
	return token, false, ref
}

// admit holds a verified token to the gate's DPoP policy: nil to admit,
// a refusal, or an error when the replay check could not run. A proof
// admitted with the previous step's nonce sets the current one in w's
// DPoP-Nonce (RFC 9449 §8.2), so that the client moves on before its
// nonce is refused; one with the current nonce sets none.
func (p *dpopPolicy) admit(w http.ResponseWriter, r *http.Request, jkt, token string, viaDPoP bool) (*Refusal, error) {
	if !viaDPoP {
		if jkt != "" || p.required {
			return p.refusal(ReasonDPoPRequired, "invalid_token", ""), nil
		}
		return nil, nil
	}
	// The binding is compared before the proof's jti is remembered: a
	// proof of another key spends nothing in the replay store.
	proof, err := p.v.VerifyBound(r, token, jkt)
	if err != nil {
		var e *dpop.Error
		if !errors.As(err, &e) {
			return nil, err
		}
		switch e.Reason {
		case dpop.ReasonUnavailable:
			return nil, err
		case dpop.ReasonNonce:
			return p.refusal(ReasonDPoPNonce, e.Code(), e.Nonce), nil
		case dpop.ReasonBinding:
			return p.refusal(ReasonDPoPBinding, "invalid_token", ""), nil
		}
		ref := p.refusal(ReasonDPoPProof, e.Code(), "")
		ref.dpop.proof = e.Reason
		return ref, nil
	}
	if proof.Nonce != "" {
		w.Header().Set("DPoP-Nonce", proof.Nonce)
	}
	return nil, nil
}

func (p *dpopPolicy) refusal(reason bearer.Reason, code, nonce string) *Refusal {
	return &Refusal{Kind: KindTokenRejected, Reason: reason, dpop: &dpopChallenge{algs: p.algs, code: code, nonce: nonce}}
}

// underDPoP gives a token refused for its own sake, sent with the DPoP
// scheme, the DPoP challenge alone (RFC 9449 §7.1).
func (p *dpopPolicy) underDPoP(ref *Refusal) *Refusal {
	if ref.dpop != nil || ref.Kind != KindTokenRejected {
		return ref
	}
	own := *ref
	own.dpop = &dpopChallenge{algs: p.algs, code: "invalid_token"}
	return &own
}

// challenged gives a 401 of the gate the DPoP challenge (with Bearer's,
// unless DPoP is required) when it has none of its own.
func (p *dpopPolicy) challenged(ref *Refusal) *Refusal {
	if ref.dpop != nil || ref.Kind != KindAuthenticationRequired && ref.Kind != KindTokenRejected {
		return ref
	}
	own := *ref
	own.dpop = &dpopChallenge{algs: p.algs, bearerToo: !p.required}
	if p.required && own.Kind == KindTokenRejected {
		own.dpop.code = "invalid_token"
	}
	return &own
}

// dpopReasonAttr names, on a refused proof's security record and on the
// attempts metric, the proof's own reason (a dpop.Reason: htu, iat,
// replayed, …), a fixed set beside the refusal's word dpop-proof.
const dpopReasonAttr = "svc.dpop.reason"

// proofReason is the reason a proof was refused, "" for any other
// refusal.
func (r *Refusal) proofReason() string {
	if r.dpop == nil {
		return ""
	}
	return r.dpop.proof
}

// dpopDetails are the bodies' details of DPoP refusals, which must not
// tell the client to get a new token.
var dpopDetails = map[bearer.Reason]string{
	ReasonDPoPProof:    "The DPoP proof was refused. Send a new proof for this request, signed by the token's key.",
	ReasonDPoPNonce:    "The DPoP proof must carry the server's nonce. Send a new proof with the nonce of the DPoP-Nonce header.",
	ReasonDPoPBinding:  "The token is not bound to the key that signed the DPoP proof.",
	ReasonDPoPRequired: "This token must be sent with the DPoP authorization scheme and a DPoP proof.",
}

// describe puts the DPoP challenge (and nonce) in d's headers: after the
// Bearer challenge when both are sent, alone otherwise. scope is the
// refusal's scope parameter, if any (RFC 9449 §7.1 takes RFC 6750's).
func (c *dpopChallenge) describe(d *svcerrors.Description, reason bearer.Reason, scope []string) {
	if detail, ok := dpopDetails[reason]; ok {
		d.Detail = detail
	}
	v := `DPoP algs="` + c.algs + `"`
	if c.code != "" {
		v += `, error="` + c.code + `"`
	}
	for _, p := range scope {
		v += ", " + p
	}
	if d.Header == nil {
		d.Header = http.Header{}
	}
	if c.bearerToo {
		d.Header.Add("Www-Authenticate", v)
	} else {
		d.Header.Set("Www-Authenticate", v)
	}
	if c.nonce != "" {
		d.Header.Set("Dpop-Nonce", c.nonce)
	}
}

// dpopTyped reports whether the issuer said, introspecting the token, that
// it is a DPoP token (token_type DPoP, RFC 9449 §6.2): a gate without
// authn.DPoP refuses it, having no proof to check.
func dpopTyped(p bearer.Principal) bool {
	if p.Claims == nil {
		return false
	}
	raw := p.Claims.Raw["token_type"]
	if len(raw) == 0 || raw[0] != '"' {
		return false
	}
	var s string
	return json.Unmarshal(raw, &s) == nil && strings.EqualFold(s, "DPoP")
}

// dpopUnavailable answers a request whose proof's replay check could not
// run: 503 request-refused (a replay must not pass), the cause logged.
func (g *Gate) dpopUnavailable(w http.ResponseWriter, r *http.Request, err error) {
	g.log.Warn("authn: DPoP proof not checked for replay; request refused", zap.String("url.path", r.URL.Path),
		requestIDField(r), zap.Error(err))
	svcerrors.Refuse(w, r, &svcerrors.AdmissionRefused{})
}
