package oidcprovider

import (
	"net/http"
	"net/url"
	"testing"
)

func kids(t *testing.T, p *Provider) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, k := range fetchJWKS(t, p).Keys {
		if !k.IsPublic() {
			t.Errorf("JWKS publishes a private key (kid %q)", k.KeyID)
		}
		out[k.KeyID] = k.Algorithm
	}
	return out
}

func TestRotateKeys(t *testing.T) {
	t.Parallel()
	p := Start(t, Options{})
	// keepOld first: the second rotation then drops two generations at once.
	for _, keepOld := range []bool{true, false} {
		t.Run(map[bool]string{true: "keepOld", false: "dropOld"}[keepOld], func(t *testing.T) {
			before := kids(t, p)
			oldKID := p.KeyID(t)
			if before[oldKID] != "ES256" {
				t.Fatalf("JWKS before rotation %v, signing kid %q", before, oldKID)
			}
			old := p.Token(t, "read")

			p.RotateKeys(t, keepOld)
			after := kids(t, p)
			newKID := p.KeyID(t)
			if newKID == oldKID || after[newKID] != "ES256" {
				t.Fatalf("signing kid %q after rotation (was %q), JWKS %v", newKID, oldKID, after)
			}
			if kid := verify(t, p, p.Token(t, "read")).Header.KeyID; kid != newKID {
				t.Errorf("new token kid %q, want %q", kid, newKID)
			}
			wantKeys := 2
			if keepOld {
				wantKeys = len(before) + 2
			}
			if len(after) != wantKeys {
				t.Errorf("JWKS after rotation has %d keys, want %d: %v", len(after), wantKeys, after)
			}
			if _, kept := after[oldKID]; kept != keepOld {
				t.Errorf("old kid in JWKS: %v, want %v", kept, keepOld)
			}

			// Token exchange accepts a subject token only while its key is published.
			res := p.PostToken(t, url.Values{
				"grant_type":         {GrantTokenExchange},
				"subject_token":      {old},
				"subject_token_type": {TokenTypeAccessToken},
			}, DefaultClientID, DefaultClientSecret)
			if keepOld && res.Status != http.StatusOK {
				t.Errorf("exchange of a token signed by a kept key: %d %s", res.Status, res.Body)
			}
			if !keepOld {
				wantRefusal(t, res, http.StatusBadRequest, "invalid_grant")
			}
		})
	}
}
