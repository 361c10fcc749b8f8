package authn_test

import (
	"fmt"
	"testing"

	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/bans"
	"github.com/svckit/svc/modules/authn/bearer"
)

// Regression: issue 14 item 2.
// A verifier over its budget of fresh verifications is answered 503
// bulkhead-full with Retry-After and no challenge, and never counts toward
// bans: the token was not judged.
func TestGateAnswersBusyVerifier503AndNeverBans(t *testing.T) {
	v := newFake()
	v.errs["busy-token"] = fmt.Errorf("%w: 2 running and 32 waiting", bearer.ErrBusy)
	b := bans.New(bans.Threshold(2))
	srv := gateServer(t, nil, exampleRouter(), v, authn.Bans(b))
	for i := range 5 {
		got := do(t, srv, "GET", "/me", bearerHeader("busy-token"), "")
		if got.status != 503 || got.json["type"] != docs+"bulkhead-full" || got.header.Get("Retry-After") != "1" ||
			got.header.Get("WWW-Authenticate") != "" {
			t.Fatalf("busy %d: %d %v %s", i, got.status, got.header, got.body)
		}
	}
	if b.Active() != 0 {
		t.Fatal("a busy verifier's answers started a ban")
	}
	if got := do(t, srv, "GET", "/me", bearerHeader("alice-token"), ""); got.status != 200 {
		t.Fatalf("a token the verifier admits: %d", got.status)
	}
}
