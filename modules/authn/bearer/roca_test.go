package bearer

import (
	"crypto"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"math/big"
	"os"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

// rocaJWKS is Wycheproof's JSON Web Key test 7 ("jws_rsa_roca_key",
// rejectsKeyWithRocaVulnerability): the public key set as published in
// C2SP/wycheproof testvectors/json_web_key_test.json.
func rocaJWKS(t *testing.T) (set []byte, jwk json.RawMessage) {
	t.Helper()
	set, err := os.ReadFile("testdata/wycheproof-jwk-test7-roca.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct{ Keys []json.RawMessage }
	if err := json.Unmarshal(set, &doc); err != nil || len(doc.Keys) != 1 {
		t.Fatalf("testdata: %v", err)
	}
	return set, doc.Keys[0]
}

// Regression: issue 25 item 8.
// A JWK Set holding a ROCA-vulnerable RSA key (Wycheproof JWK test 7)
// loads without it, with a warning naming its kid; the rest of the set
// still loads.
func TestROCAKeyIsSkippedWithAWarningNamingItsKid(t *testing.T) {
	k := keys(t)
	_, roca := rocaJWKS(t)
	core, logs := observer.New(zap.DebugLevel)
	got, err := parseJWKS(jwksJSON(t, roca, jwkJSON(t, &k.rsa.PublicKey, "good", "")), zap.New(core))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].id != "good" {
		t.Fatalf("kept %d keys; want only kid good", len(got))
	}
	warned := logs.FilterLevelExact(zap.WarnLevel).All()
	if len(warned) != 1 {
		t.Fatalf("%d warnings, want 1", len(warned))
	}
	msg := warned[0].ContextMap()["error"]
	if s, _ := msg.(string); !strings.Contains(s, `kid "kid-rsa-roca-sign"`) || !strings.Contains(s, "ROCA") {
		t.Fatalf("warning %q: want the kid and the ROCA fingerprint named", msg)
	}
}

// The same key held in code is a *ConfigError naming it.
func TestROCAKeyHeldInCodeIsAConfigError(t *testing.T) {
	_, roca := rocaJWKS(t)
	var jwk struct{ N string }
	if err := json.Unmarshal(roca, &jwk); err != nil {
		t.Fatal(err)
	}
	n := modulus(t, jwk.N)
	err := KeySet(testIssuer, testAudience, []crypto.PublicKey{&rsa.PublicKey{N: n, E: 65537}}).err
	var ce *ConfigError
	if !errors.As(err, &ce) || ce.Setting != "keys[0]" || !strings.Contains(ce.Problem, "ROCA") {
		t.Fatalf("a ROCA key in KeySet: %v", err)
	}
}

// Ordinary moduli are not flagged: fixed keys of 2048 to 4096 bits made by
// crypto/rsa (testdata/ordinary-rsa-moduli.json), Wycheproof's RS256 test
// key, and this run's generated keys.
func TestOrdinaryRSAKeysHaveNoROCAFingerprint(t *testing.T) {
	b, err := os.ReadFile("testdata/ordinary-rsa-moduli.json")
	if err != nil {
		t.Fatal(err)
	}
	var fixed []string
	if err := json.Unmarshal(b, &fixed); err != nil || len(fixed) < 5 {
		t.Fatalf("testdata: %d moduli, %v", len(fixed), err)
	}
	// Wycheproof json_web_key_test.json, tests 5 and 6 (kid-rsa-sign).
	fixed = append(fixed, "kqGboBfAWttWPCA-0cGRgsY6SaYoIARt0B_PkaEcIq9HPYNdu9n6UuWHuuTHrjF_ZoQW97r5HaAorNvrMEGTGdxCHZdEtkHvNVVmrtxTBLiQCbCozXhFoIrVcr3qUBrdGnNn_M3jJi7Wg7p_-x62nS5gNG875oyheRkutHsQXikFZwsN3q_TsPNOVlCiHy8mxzaFTUQGm-X8UYexFyAivlDSjgDJLAZSWfxd7k9Gxuwa3AUfQqQcVcegmgKGCaErQ3qQbh1x7WB6iopE3_-GZ8HMAVtR9AmrVscqYsnjhaCehfAI0iKKs8zXr8tISc0ORbaalrkk03H1ZrsEnDKEWQ")
	for i, s := range fixed {
		if n := modulus(t, s); hasROCAFingerprint(n) {
			t.Errorf("fixed modulus %d (%d bits) flagged", i, n.BitLen())
		}
		if _, err := newHeldKey(&rsa.PublicKey{N: modulus(t, s), E: 65537}, "", ""); err != nil {
			t.Errorf("fixed modulus %d refused: %v", i, err)
		}
	}
	k := keys(t)
	for _, key := range []*rsa.PrivateKey{k.rsa, k.rsa2} {
		if hasROCAFingerprint(key.N) {
			t.Error("a generated key flagged")
		}
	}
	_, roca := rocaJWKS(t)
	var jwk struct{ N string }
	_ = json.Unmarshal(roca, &jwk)
	if !hasROCAFingerprint(modulus(t, jwk.N)) {
		t.Fatal("the Wycheproof ROCA modulus is not flagged")
	}
}

func modulus(t *testing.T, b64url string) *big.Int {
	t.Helper()
	b, err := base64.RawURLEncoding.DecodeString(b64url)
	if err != nil {
		t.Fatal(err)
	}
	return new(big.Int).SetBytes(b)
}
