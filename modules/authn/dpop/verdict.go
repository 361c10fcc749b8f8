package dpop

import (
	"crypto/subtle"
	"time"
)

// Proof is what a verified proof tells its caller (the authn gate, or a
// token endpoint that binds the token it issues to the proof's key).
type Proof struct {
	// Thumbprint is the RFC 7638 SHA-256 thumbprint of the proof's key,
	// base64url: the cnf.jkt of a token bound to it.
	Thumbprint string
	// IssuedAt is the proof's iat.
	IssuedAt time.Time
	// Nonce is the server's current nonce when the proof carried the
	// previous step's (still accepted), "" otherwise: the gate sends it
	// in DPoP-Nonce on the answer (RFC 9449 §8.2), so that the client
	// moves on before its nonce is refused.
	Nonce string
}

// Bind refuses (ReasonBinding) when jkt, an access token's cnf.jkt, is not
// the proof key's thumbprint; an empty jkt (a token bound to no key) is
// refused too.
func (p Proof) Bind(jkt string) error {
	if jkt == "" || subtle.ConstantTimeCompare([]byte(jkt), []byte(p.Thumbprint)) != 1 {
		return &Error{Reason: ReasonBinding}
	}
	return nil
}

// Reasons a proof is refused: the Reason of an [*Error], one word each so
// that a metric labelled by it stays bounded. docs/authn.md lists them.
const (
	ReasonMissing     = "missing"     // no DPoP header
	ReasonMultiple    = "multiple"    // more than one DPoP header
	ReasonOversized   = "oversized"   // over the verifier's bound
	ReasonMalformed   = "malformed"   // not a compact JWS of canonical base64url JSON
	ReasonType        = "typ"         // typ is not dpop+jwt
	ReasonAlgorithm   = "alg"         // alg not in the allow-list
	ReasonKey         = "jwk"         // jwk missing, private or unusable
	ReasonSignature   = "signature"   // the signature does not verify
	ReasonMethod      = "htm"         // htm is not the request's method
	ReasonURL         = "htu"         // htu is not the request's URL
	ReasonIssuedAt    = "iat"         // iat missing or outside the window
	ReasonID          = "jti"         // jti missing or empty
	ReasonReplayed    = "replayed"    // jti seen within the window
	ReasonTokenHash   = "ath"         // ath missing or not the access token's hash
	ReasonNonce       = "nonce"       // the server nonce is missing or stale
	ReasonBinding     = "jkt"         // the proof's key is not the token's cnf.jkt
	ReasonUnavailable = "unavailable" // the replay store did not answer
)

// Error is a refused proof. Its message names the reason, never a claim.
type Error struct {
	// Reason is one of the Reason constants.
	Reason string
	// Nonce is the nonce the client must use, set when Reason is
	// ReasonNonce: the gate sends it in a DPoP-Nonce header.
	Nonce string
	// Err is the replay store's failure when Reason is ReasonUnavailable.
	Err error
}

func (e *Error) Error() string {
	msg := "dpop: proof refused: " + e.Reason
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Unwrap returns the replay store's failure, if any.
func (e *Error) Unwrap() error { return e.Err }

// Code is the error of the WWW-Authenticate challenge (RFC 9449 §7.1,
// §8): use_dpop_nonce for a missing or stale nonce, invalid_token for a
// token bound to another key, else invalid_dpop_proof.
func (e *Error) Code() string {
	switch e.Reason {
	case ReasonNonce:
		return "use_dpop_nonce"
	case ReasonBinding:
		return "invalid_token"
	}
	return "invalid_dpop_proof"
}

func refuse(reason string) error { return &Error{Reason: reason} }
