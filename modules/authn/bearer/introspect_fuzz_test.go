package bearer

import (
	"crypto"
	"encoding/json"
	"errors"
	"slices"
	"testing"
)

// FuzzReadIntrospection holds the answer parser to its contract on any
// body: it never panics; it accepts only an object whose active is true
// and whose claims pass (issuer, audience, exp in the future); anything
// it neither accepts nor refuses as a token is no answer at all.
func FuzzReadIntrospection(f *testing.F) {
	for _, a := range []map[string]any{activeAnswer(), {"active": false}, {"active": true}} {
		b, _ := json.Marshal(a)
		f.Add(b)
	}
	for _, s := range []string{`{"active":true,"active":true}`, `{"active":"true"}`, `[]`, `{"active":true,"exp":1e400}`,
		`{"active":true,"iss":"https://issuer.example","aud":["https://api.example",null],"exp":1999999999}`, "\xff"} {
		f.Add([]byte(s))
	}
	v := KeySet(testIssuer, testAudience, []crypto.PublicKey{&keys(f).rsa.PublicKey}, Clock(fixedClock()))
	f.Fuzz(func(t *testing.T, body []byte) {
		p, until, err := v.readIntrospection(body, testNow)
		var te *TokenError
		switch {
		case err == nil:
			var active bool
			if json.Unmarshal(p.Claims.Raw["active"], &active) != nil || !active {
				t.Fatalf("accepted without active true: %s", body)
			}
			if !p.Authenticated || p.Issuer != testIssuer || !slices.Contains(p.Claims.Audience, testAudience) || !until.After(testNow) {
				t.Fatalf("accepted %+v until %v: %s", p, until, body)
			}
			if !json.Valid(body) {
				t.Fatalf("accepted invalid JSON: %q", body)
			}
		case errors.As(err, &te):
			if te.Principal.Authenticated {
				t.Fatal("a refusal names an authenticated caller")
			}
		}
	})
}
