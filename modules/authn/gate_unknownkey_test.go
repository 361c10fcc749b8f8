package authn_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/svckit/svc/modules/authn/bearer"
)

// Regression: issue 34 item 5. A token refused unknown-key was told to
// "get a new token", which after a key rotation names the same new key and
// cannot help; the verifier fetches the keys again within its rotation
// cooldown, so the answer says to retry the same token shortly.
func TestUnknownKeyRefusalSaysToRetry(t *testing.T) {
	v := newFake()
	v.errs["rotated-token"] = &bearer.TokenError{Reason: bearer.ReasonUnknownKey}
	srv := gateServer(t, nil, exampleRouter(), v)

	got := do(t, srv, "GET", "/me", bearerHeader("rotated-token"), "")
	if !wantAnswer(t, got, http.StatusUnauthorized, []string{`Bearer error="invalid_token"`}, "unknown-key") {
		return
	}
	detail, _ := got.json["detail"].(string)
	if got.json["type"] != docs+"token-rejected" || !strings.Contains(detail, "Retry the same token in a few seconds") ||
		strings.Contains(detail, "new token") {
		t.Fatalf("unknown-key detail %q: want it to say to retry, not to get a new token (%s)", detail, got.body)
	}
	// Every other rejection keeps its advice.
	got = do(t, srv, "GET", "/me", bearerHeader("forged-token"), "")
	if got.json["detail"] != "The bearer token did not verify (signature). Get a new token rather than retrying this one." {
		t.Fatalf("signature detail: %s", got.body)
	}
}
