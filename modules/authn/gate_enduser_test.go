package authn_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/bearer"
)

// TestEndUserOnRefusalsWhoseSignatureVerified: "Naming the caller in
// telemetry" rule 2 names the caller on a refusal for a missing scope and
// on one by the check hook, not only on an expired token.
func TestEndUserOnRefusalsWhoseSignatureVerified(t *testing.T) {
	hook := func(_ context.Context, p bearer.Principal, r *http.Request) (bearer.Principal, error) {
		if r.Header.Get("X-Revoked") != "" {
			return bearer.Principal{}, nil
		}
		return p, nil
	}
	o := observedGate(t, exampleRouter(), newFake(), authn.EndUser(true), authn.Check(hook))
	revoked := bearerHeader("alice-token")
	revoked.Set("X-Revoked", "1")
	cases := []struct {
		name   string
		path   string
		header http.Header
		status int
		word   string
	}{
		{"missing scope", "/admin", bearerHeader("alice-token"), 403, "insufficient-scope"},
		{"refused by check", "/me", revoked, 401, "revoked"},
	}
	for i, tc := range cases {
		if got := do(t, o.srv, "GET", tc.path, tc.header, ""); got.status != tc.status {
			t.Fatalf("%s: %d", tc.name, got.status)
		}
		span := o.spans.Ended()[i]
		if !hasAttr(span.Attributes(), "enduser.id", "alice") || !hasAttr(span.Attributes(), "svc.authentication.refusal", tc.word) {
			t.Errorf("%s: span attributes %v", tc.name, span.Attributes())
		}
	}
}
