//lint:file-ignore SA1019 these tests build malformed keys from raw coordinates on purpose

package bearer

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"math/big"
	"strings"
	"testing"

	"github.com/go-jose/go-jose/v4"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

// malformedKeys are public keys no signature verifies under, built by hand
// as a misconfigured app might hand them to KeySet.
func malformedKeys(t *testing.T) []struct {
	name, problem string
	key           crypto.PublicKey
} {
	k := keys(t)
	pub := k.rsa.PublicKey
	withN := func(n *big.Int) *rsa.PublicKey { return &rsa.PublicKey{N: n, E: pub.E} }
	withE := func(e int) *rsa.PublicKey { return &rsa.PublicKey{N: pub.N, E: e} }
	ec := k.p256.PublicKey
	offCurve := &ecdsa.PublicKey{Curve: elliptic.P256(), X: ec.X, Y: new(big.Int).Add(ec.Y, big.NewInt(1))}
	huge := new(big.Int).Lsh(big.NewInt(1), 8200)
	huge.Add(huge, big.NewInt(1))
	return []struct {
		name, problem string
		key           crypto.PublicKey
	}{
		{"EC nil X", "x or y missing", &ecdsa.PublicKey{Curve: elliptic.P256(), Y: ec.Y}},
		{"EC nil Y", "x or y missing", &ecdsa.PublicKey{Curve: elliptic.P256(), X: ec.X}},
		{"EC nil curve", "no curve", &ecdsa.PublicKey{X: ec.X, Y: ec.Y}},
		{"EC off curve", "not on curve P-256", offCurve},
		{"EC negative X", "not on curve P-256", &ecdsa.PublicKey{Curve: elliptic.P256(), X: new(big.Int).Neg(ec.X), Y: ec.Y}},
		{"EC point of another curve", "not on curve P-384", &ecdsa.PublicKey{Curve: elliptic.P384(), X: ec.X, Y: ec.Y}},
		{"nil EC key", "empty EC key", (*ecdsa.PublicKey)(nil)},
		{"RSA E=0", "exponent e=0", withE(0)},
		{"RSA E=1", "exponent e=1", withE(1)},
		{"RSA even E", "exponent e=65536", withE(65536)},
		{"RSA negative E", "exponent e=-3", withE(-3)},
		{"RSA E over 2^31-1", "exponent e=8589934593", withE(1<<33 + 1)},
		{"RSA even N", "modulus n is even", withN(new(big.Int).Sub(pub.N, big.NewInt(1)))},
		{"RSA negative N", "not positive", withN(new(big.Int).Neg(pub.N))},
		{"RSA zero N", "not positive", withN(new(big.Int))},
		{"RSA nil N", "no modulus", &rsa.PublicKey{E: 65537}},
		{"nil RSA key", "no modulus", (*rsa.PublicKey)(nil)},
		{"RSA 1024 bits", "below 2048", &k.rsa1024.PublicKey},
		{"RSA over 4096 bits", "above 4096", withN(huge)},
	}
}

// Regression: issue 14 item 6.
// A malformed key given to KeySet is a *ConfigError from Open and every
// Verify naming the key's index and what is wrong; it never panics (a nil X
// used to panic in the thumbprint) and never turns every token into a
// forgery counted toward bans.
func TestKeySetRefusesMalformedKeysWithConfigError(t *testing.T) {
	k := keys(t)
	tok := joseSign(t, jose.ES256, k.p256, "", validClaims())
	for _, c := range malformedKeys(t) {
		t.Run(c.name, func(t *testing.T) {
			v := KeySet(testIssuer, testAudience, []crypto.PublicKey{&k.p256.PublicKey, c.key}, Clock(fixedClock()))
			for _, err := range []error{v.Open(context.Background()), func() error { _, err := v.Verify(context.Background(), tok); return err }()} {
				var ce *ConfigError
				if !errors.As(err, &ce) {
					t.Fatalf("error %v (%T) is not a *ConfigError", err, err)
				}
				if ce.Setting != "keys[1]" || !strings.Contains(ce.Problem, c.problem) {
					t.Fatalf("setting %q problem %q; want keys[1] and %q", ce.Setting, ce.Problem, c.problem)
				}
			}
		})
	}
}

// rsaJWK is an RSA JWK with the given n and e, base64url big-endian.
func rsaJWK(kid string, n, e []byte) json.RawMessage {
	b, _ := json.Marshal(map[string]string{"kty": "RSA", "kid": kid, "n": enc.EncodeToString(n), "e": enc.EncodeToString(e)})
	return b
}

// withMember adds a member to a JWK.
func withMember(t *testing.T, jwk json.RawMessage, name string, value any) json.RawMessage {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(jwk, &m); err != nil {
		t.Fatal(err)
	}
	m[name] = value
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Regression: issue 14 item 6.
// A malformed key in a fetched JWK Set is skipped with a warning naming it,
// and the set's other keys stay usable; nothing panics.
func TestParseJWKSSkipsMalformedKeysWithAWarning(t *testing.T) {
	k := keys(t)
	n := k.rsa.PublicKey.N.Bytes()
	evenN := new(big.Int).Sub(k.rsa.PublicKey.N, big.NewInt(1)).Bytes()
	ec := k.p256.PublicKey
	cases := []struct {
		name string
		jwk  json.RawMessage
	}{
		{"RSA e=0", rsaJWK("bad", n, []byte{0})},
		{"RSA e=2", rsaJWK("bad", n, []byte{2})},
		{"RSA even n", rsaJWK("bad", evenN, []byte{1, 0, 1})},
		{"RSA empty n", rsaJWK("bad", nil, []byte{1, 0, 1})},
		{"RSA e=2^33+1", rsaJWK("bad", n, []byte{2, 0, 0, 0, 1})},
		{"EC missing x", json.RawMessage(`{"kty":"EC","crv":"P-256","kid":"bad","y":"` + enc.EncodeToString(ec.Y.FillBytes(make([]byte, 32))) + `"}`)},
		{"EC off curve", json.RawMessage(`{"kty":"EC","crv":"P-256","kid":"bad","x":"` + enc.EncodeToString(ec.X.FillBytes(make([]byte, 32))) + `","y":"` + enc.EncodeToString(new(big.Int).Add(ec.Y, big.NewInt(1)).FillBytes(make([]byte, 32))) + `"}`)},
		{"key_ops not strings", withMember(t, jwkJSON(t, &k.p256.PublicKey, "bad", ""), "key_ops", 7)},
	}
	good := jwkJSON(t, &k.p256.PublicKey, "good", "ES256")
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			core, logs := observer.New(zap.DebugLevel)
			got, err := parseJWKS(jwksJSON(t, c.jwk, good), zap.New(core))
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 1 || got[0].id != "good" {
				t.Fatalf("kept %d keys", len(got))
			}
			warned := logs.FilterLevelExact(zap.WarnLevel).All()
			if len(warned) != 1 || warned[0].ContextMap()["index"] != int64(0) {
				t.Fatalf("want one warning naming the key's index, got %v", logs.All())
			}
			if msg := warned[0].ContextMap()["error"].(string); c.name != "key_ops not strings" && !strings.Contains(msg, `kid "bad"`) {
				t.Fatalf("the warning %q does not name the kid", msg)
			}
		})
	}
}

// Regression: issue 14 item 5.
// A JWK whose key_ops leaves out verify verifies nothing (RFC 7517 §4.3,
// Wycheproof JWS tcId 355-356), nor does one whose use is not sig; it is
// skipped quietly, as a key meant for something else.
func TestParseJWKSHonoursKeyOpsAndUse(t *testing.T) {
	k := keys(t)
	base := jwkJSON(t, &k.p256.PublicKey, "k", "")
	cases := []struct {
		name string
		jwk  json.RawMessage
		kept bool
	}{
		{"key_ops sign", withMember(t, base, "key_ops", []string{"sign"}), false},
		{"key_ops empty", withMember(t, base, "key_ops", []string{}), false},
		{"key_ops encrypt, wrapKey", withMember(t, base, "key_ops", []string{"encrypt", "wrapKey"}), false},
		{"key_ops VERIFY (case-sensitive)", withMember(t, base, "key_ops", []string{"VERIFY"}), false},
		{"use enc", withMember(t, base, "use", "enc"), false},
		{"key_ops verify", withMember(t, base, "key_ops", []string{"verify"}), true},
		{"key_ops sign, verify", withMember(t, base, "key_ops", []string{"sign", "verify"}), true},
		{"no key_ops", base, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			core, logs := observer.New(zap.DebugLevel)
			got, err := parseJWKS(jwksJSON(t, c.jwk, jwkJSON(t, &k.p384.PublicKey, "other", "")), zap.New(core))
			if err != nil {
				t.Fatal(err)
			}
			if kept := len(got) == 2; kept != c.kept {
				t.Fatalf("kept %d keys; want the key kept: %v", len(got), c.kept)
			}
			if n := len(logs.FilterLevelExact(zap.WarnLevel).All()); n != 0 {
				t.Fatalf("%d warnings for a key meant for something else", n)
			}
		})
	}
}

// Regression: issue 14 item 5.
// End to end: a token signed by the key a key_ops-without-verify JWK holds
// does not verify, with its kid or without one.
func TestJWKSKeyWithoutVerifyOpVerifiesNothing(t *testing.T) {
	k := keys(t)
	body := jwksJSON(t,
		withMember(t, jwkJSON(t, &k.p256.PublicKey, "signing-only", ""), "key_ops", []string{"sign"}),
		jwkJSON(t, &k.p256b.PublicKey, "other", ""))
	srv := newJWKSServer(t, body)
	v := remoteVerifier(t, srv.URL, nil)
	waitKeys(t, v)
	for _, kid := range []string{"signing-only", ""} {
		_, err := v.Verify(context.Background(), joseSign(t, jose.ES256, k.p256, kid, validClaims()))
		if err == nil {
			t.Fatalf("kid %q: a key without the verify operation verified a token", kid)
		}
		if r := reasonOf(t, err); r != ReasonUnknownKey && r != ReasonSignature {
			t.Fatalf("kid %q: reason %s", kid, r)
		}
	}
}
