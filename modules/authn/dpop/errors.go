package dpop

import "net/http"

// Reasons a proof is refused: the Reason of an [*Error], one word each so
// that a metric labelled by it stays bounded.
const (
	ReasonMissing     = "missing"     // no DPoP header
	ReasonMultiple    = "multiple"    // more than one DPoP header
	ReasonOversized   = "oversized"   // over maxProofBytes
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
	// ReasonNonce: the caller sends it in a DPoP-Nonce header.
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

// Status is the HTTP status to answer: 503 when the replay store did not
// answer (a replay check that cannot run refuses: it fails closed), else
// 401.
func (e *Error) Status() int {
	if e.Reason == ReasonUnavailable {
		return http.StatusServiceUnavailable
	}
	return http.StatusUnauthorized
}

func refuse(reason string) error { return &Error{Reason: reason} }
