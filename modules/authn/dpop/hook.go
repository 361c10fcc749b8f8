package dpop

import (
	"net/http"

	"github.com/svckit/svc/internal/dpophook"
)

// The gate verifies proofs through internal/dpophook; an app only builds
// the verifier.
func init() {
	dpophook.Verify = func(v any, r *http.Request, accessToken string) (dpophook.Proof, error) {
		return v.(*Verifier).verify(r, accessToken, false, "")
	}
	dpophook.VerifyBound = func(v any, r *http.Request, accessToken, jkt string) (dpophook.Proof, error) {
		return v.(*Verifier).verify(r, accessToken, true, jkt)
	}
	dpophook.Algorithms = func(v any) []string { return v.(*Verifier).algorithms() }
}

func refuse(reason string) error { return &dpophook.Error{Reason: reason} }
