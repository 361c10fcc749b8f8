package authntest_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/authntest"
)

// me is the handler under test.
func me(w http.ResponseWriter, r *http.Request) {
	p, _ := authn.PrincipalFrom(r.Context())
	fmt.Fprintf(w, "%s %v", p.Subject, p.Scopes.List())
}

// A handler test needs no issuer: the request carries the caller as the
// gate would have left it.
func ExampleWithPrincipal() {
	req := authntest.WithPrincipal(httptest.NewRequest("GET", "/me", nil), authntest.Caller("alice", "read"))
	rec := httptest.NewRecorder()
	me(rec, req)
	fmt.Println(rec.Body.String())
	// Output:
	// alice [read]
}

// A test of the whole verification uses a real issuer on 127.0.0.1 and
// the verifier pointed at it (in a test function; svctest.Start runs a
// whole app with it).
func ExampleNewIssuer() {
	// Compile-only: the steps need a test's *testing.T, which an Example
	// has not; TestIssuerTokenOptionsReachTheVerifier runs the same steps.
	testVerify := func(t *testing.T) {
		iss := authntest.NewIssuer(t)
		v := iss.Verifier() // opened, keys loaded, closed at the test's cleanup
		p, err := v.Verify(t.Context(), iss.Token(authntest.Subject("alice"), authntest.Scopes("read")))
		if err != nil || p.Subject != "alice" || !p.Scopes.Has("read") {
			t.Fatalf("verify: %v %+v", err, p)
		}
	}
	_ = testVerify
}
