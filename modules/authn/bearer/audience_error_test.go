package bearer

import (
	"context"
	"crypto"
	"errors"
	"slices"
	"testing"

	"github.com/go-jose/go-jose/v4"
)

// Issue 34 item 3: an audience refusal carries, as a typed cause, the
// token's aud and the audience the verifier trusts, so that the gate can
// write both where an operator reads them.
func TestAudienceRefusalCarriesBothAudiences(t *testing.T) {
	k := keys(t)
	v := KeySet(testIssuer, testAudience, []crypto.PublicKey{&k.p256.PublicKey}, Clock(fixedClock()))
	for _, aud := range [][]string{{"account"}, {"account", "broker"}, {}} {
		claims := validClaims()
		claims["aud"] = aud
		_, err := v.Verify(context.Background(), joseSign(t, jose.ES256, k.p256, "", claims))
		var ae *AudienceError
		if reasonOf(t, err) != ReasonAudience || !errors.As(err, &ae) || !errors.Is(err, errAudience) {
			t.Fatalf("aud %v: %v, want an AudienceError", aud, err)
		}
		if !slices.Equal(ae.Got, aud) || ae.Want != testAudience {
			t.Fatalf("aud %v: Got %q Want %q", aud, ae.Got, ae.Want)
		}
	}
}
