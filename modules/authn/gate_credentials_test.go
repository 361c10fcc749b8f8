package authn_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/svckit/svc/modules/authn/authntest"
	"github.com/svckit/svc/modules/authn/bearer"
	svcerrors "github.com/svckit/svc/modules/errors"
)

// recordingVerifier is a verifier of the app's own: it admits any token
// and remembers what it was handed.
type recordingVerifier struct {
	mu     sync.Mutex
	handed []string
}

func (v *recordingVerifier) Verify(_ context.Context, token string) (bearer.Principal, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.handed = append(v.handed, token)
	return bearer.Principal{Subject: "alice", Authenticated: true}, nil
}

// A credential that is not an RFC 6750 b64token is the gate's
// token-rejected (malformed) whatever the verifier: one of the app's own
// is never handed it, and svc's, which scans only the tokens it refused
// (so that a cached token skips the scan), answers it the same way.
func TestACredentialThatIsNotAB64TokenIsMalformed(t *testing.T) {
	own := &recordingVerifier{}
	iss := authntest.NewIssuer(t)
	for _, v := range []bearer.Verifier{own, iss.Verifier()} {
		srv := gateServer(t, svcerrors.New(), exampleRouter(), v)
		for _, cred := range []string{"Bearer a b", "Bearer tok\"en", "Bearer ab=c", "Bearer ä", "Bearer a,b", "Bearer " + iss.Token() + "!", "Bearer " + strings.Repeat("a b", 4000)} {
			got := do(t, srv, "GET", "/me", http.Header{"Authorization": {cred}}, "")
			if got.status != http.StatusUnauthorized || got.json["reason"] != "malformed" ||
				got.header.Get("Content-Type") != "application/problem+json" || got.header.Get("WWW-Authenticate") == "" {
				t.Errorf("%T, %q: %d %v %s", v, cred, got.status, got.header, got.body)
			}
		}
		if got := do(t, srv, "GET", "/me", bearerHeader(iss.Token()), ""); got.status != http.StatusOK {
			t.Errorf("%T, a valid token: %d %s", v, got.status, got.body)
		}
	}
	if len(own.handed) != 1 {
		t.Fatalf("the app's verifier was handed %q, want only the valid token", own.handed)
	}
}
