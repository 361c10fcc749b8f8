package bearer

import (
	"errors"
	"strings"
	"testing"
)

// The reason words are a public contract: the refusal body's reason and
// the error.type of telemetry. This table pins them.
func TestReasonWordsAreStable(t *testing.T) {
	words := map[Reason]string{
		ReasonMalformed:     "malformed",
		ReasonAlgorithm:     "algorithm",
		ReasonSignature:     "signature",
		ReasonUnknownKey:    "unknown-key",
		ReasonExpired:       "expired",
		ReasonNotYetValid:   "not-yet-valid",
		ReasonIssuer:        "issuer",
		ReasonAudience:      "audience",
		ReasonInvalidClaims: "invalid-claims",
		ReasonTokenType:     "token-type",
		ReasonRevoked:       "revoked",
		ReasonEncrypted:     "encrypted",
		ReasonTooLarge:      "too-large",
	}
	for r, w := range words {
		if string(r) != w {
			t.Errorf("%s changed to %s", w, r)
		}
	}
}

func TestOnlySignatureAndAlgorithmAreForged(t *testing.T) {
	forged := map[Reason]bool{ReasonSignature: true, ReasonAlgorithm: true}
	for _, r := range []Reason{ReasonMalformed, ReasonAlgorithm, ReasonSignature, ReasonUnknownKey, ReasonExpired,
		ReasonNotYetValid, ReasonIssuer, ReasonAudience, ReasonInvalidClaims, ReasonTokenType, ReasonRevoked, ReasonEncrypted, ReasonTooLarge} {
		if r.Forged() != forged[r] {
			t.Errorf("%s.Forged() = %v", r, r.Forged())
		}
	}
}

func TestTokenErrorMessageAndUnwrap(t *testing.T) {
	cause := errors.New("cause")
	e := &TokenError{Reason: ReasonExpired, Err: cause}
	if !strings.Contains(e.Error(), "expired") || !errors.Is(e, cause) {
		t.Fatalf("%v", e)
	}
	if !strings.Contains((&TokenError{Reason: ReasonRevoked}).Error(), "revoked") {
		t.Fatal("message without cause")
	}
}
