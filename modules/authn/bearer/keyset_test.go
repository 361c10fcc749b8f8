package bearer

import (
	"context"
	"crypto"
	"errors"
	"testing"

	"github.com/go-jose/go-jose/v4"
)

func TestKeySetVerifiesWithoutOpenAndIgnoresProviderKids(t *testing.T) {
	k := keys(t)
	v := KeySet(testIssuer, testAudience, []crypto.PublicKey{&k.p256b.PublicKey, &k.p256.PublicKey, &k.rsa.PublicKey, k.ed.Public()}, Clock(fixedClock()))
	thumb := thumbprint(v.set.Load().keys[1])
	cases := []struct {
		name string
		tok  string
	}{
		{"no kid, second key of its type", joseSign(t, jose.ES256, k.p256, "", validClaims())},
		{"provider kid", joseSign(t, jose.ES256, k.p256, "provider-kid-7", validClaims())},
		{"thumbprint kid", joseSign(t, jose.ES256, k.p256, thumb, validClaims())},
		{"RSA", joseSign(t, jose.PS384, k.rsa, "", validClaims())},
		{"EdDSA", joseSign(t, jose.EdDSA, k.ed, "x", validClaims())},
	}
	for _, c := range cases {
		if _, err := v.Verify(context.Background(), c.tok); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	if err := v.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := v.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestKeySetRefusesAlgorithmsNoHeldKeyFits(t *testing.T) {
	k := keys(t)
	v := KeySet(testIssuer, testAudience, []crypto.PublicKey{&k.p256.PublicKey}, Clock(fixedClock()))
	cases := map[string]string{
		"RS256 with only an EC key held":   rawSign(t, "RS256", k.rsa, `{"alg":"RS256"}`, payloadOf(t, nil)),
		"ES384 with only a P-256 key held": rawSign(t, "ES384", k.p384, `{"alg":"ES384"}`, payloadOf(t, nil)),
	}
	for name, tok := range cases {
		_, err := v.Verify(context.Background(), tok)
		if errors.Is(err, ErrKeysUnavailable) {
			t.Fatalf("%s: held keys are never unavailable", name)
		}
		if r := reasonOf(t, err); r != ReasonAlgorithm {
			t.Errorf("%s: reason %s", name, r)
		}
	}
}

func TestKeySetTriesAtMostAFewKeysForAKidlessToken(t *testing.T) {
	k := keys(t)
	held := []crypto.PublicKey{}
	for range maxKidlessTries {
		held = append(held, &k.p256b.PublicKey)
	}
	held = append(held, &k.p256.PublicKey) // the signing key comes after the cap
	v := KeySet(testIssuer, testAudience, held, Clock(fixedClock()))
	_, err := v.Verify(context.Background(), joseSign(t, jose.ES256, k.p256, "", validClaims()))
	if r := reasonOf(t, err); r != ReasonSignature {
		t.Fatalf("reason %s: a kid-less token was tried against more than %d keys", r, maxKidlessTries)
	}
	// Named by its thumbprint, the same key is found.
	tok := joseSign(t, jose.ES256, k.p256, thumbprint(v.set.Load().keys[maxKidlessTries]), validClaims())
	if _, err := v.Verify(context.Background(), tok); err != nil {
		t.Fatal(err)
	}
}
