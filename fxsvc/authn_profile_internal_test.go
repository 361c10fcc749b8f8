package fxsvc

import (
	"fmt"
	"testing"

	"go.uber.org/zap/zapcore"

	"github.com/svckit/svc/modules/authn/bearer"
)

// Issue 34 item 1: the start line shows each issuer's provider profile
// mapping, as `check` does.
func TestTheStartLineShowsTheProviderProfile(t *testing.T) {
	v := bearer.Issuers(
		bearer.New("https://cognito-idp.us-west-2.amazonaws.com/us-west-2_x", "1example", bearer.Profile(bearer.Cognito())),
		bearer.New("https://login.example.com", "api"))
	enc := zapcore.NewMapObjectEncoder()
	encodeVerifier(gateOf(t, v), enc)
	want := "[https://cognito-idp.us-west-2.amazonaws.com/us-west-2_x [profile cognito: roles cognito:groups; client id client_id; audience client_id; token_use access] https://login.example.com]"
	if got := fmt.Sprint(enc.Fields["issuers"]); got != want {
		t.Fatalf("issuers %s, want %s", got, want)
	}
}
