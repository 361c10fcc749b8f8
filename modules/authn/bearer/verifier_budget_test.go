package bearer

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"errors"
	"math/big"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// Regression: issue 14 item 2.
// A token without a kid is tried against at most one expensive key (the
// first in the set's order), so a forged ES512 token against four P-521
// keys costs one P-521 verification, not four.
func TestKidlessTokenTriesAtMostOneExpensiveKey(t *testing.T) {
	k := keys(t)
	second, err := ecdsa.GenerateKey(elliptic.P521(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	v := KeySet(testIssuer, testAudience, []crypto.PublicKey{&k.p521.PublicKey, &second.PublicKey}, Clock(fixedClock()), Algorithms("ES512"))
	if _, err := v.Verify(context.Background(), joseSign(t, jose.ES512, k.p521, "", validClaims())); err != nil {
		t.Fatalf("the first expensive key: %v", err)
	}
	_, err = v.Verify(context.Background(), joseSign(t, jose.ES512, second, "", validClaims()))
	if r := reasonOf(t, err); r != ReasonSignature {
		t.Fatalf("reason %s: a kid-less token was tried against a second P-521 key", r)
	}
	// Named by its thumbprint, the second key is found.
	tok := joseSign(t, jose.ES512, second, thumbprint(v.set.Load().keys[1]), validClaims())
	if _, err := v.Verify(context.Background(), tok); err != nil {
		t.Fatal(err)
	}
}

// oddModulus is an odd number of bits bits: not a real RSA modulus, but
// one the key checks accept, for tests of the cost model.
func oddModulus(bits int) *big.Int {
	n := new(big.Int).Lsh(big.NewInt(1), uint(bits-1))
	return n.Add(n, big.NewInt(1))
}

// Regression: issue 14 item 2.
// The budget of tries, key by key: four keys at most, one of them
// expensive, the first in order; the same for keys sharing a kid.
func TestCandidatesBudgetOfTries(t *testing.T) {
	k := keys(t)
	held := func(pub crypto.PublicKey, id string) *heldKey {
		h, err := newHeldKey(pub, id, "")
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	rsaCheap := func(id string) *heldKey { return held(&k.rsa.PublicKey, id) }
	rsaDear := func(id string) *heldKey { return held(&rsa.PublicKey{N: oddModulus(4096), E: 65537}, id) }
	p521 := func(id string) *heldKey { return held(&k.p521.PublicKey, id) }
	p256 := func(id string) *heldKey { return held(&k.p256.PublicKey, id) }
	cases := []struct {
		name string
		keys []*heldKey
		kid  string
		a    alg
		want []int // indexes into keys
	}{
		{"four P-521, no kid", []*heldKey{p521(""), p521(""), p521(""), p521("")}, "", algES512, []int{0}},
		{"four P-256, no kid", []*heldKey{p256(""), p256(""), p256(""), p256(""), p256("")}, "", algES256, []int{0, 1, 2, 3}},
		{"RSA: cheap keys and the first dear one", []*heldKey{rsaDear(""), rsaCheap(""), rsaDear(""), rsaCheap("")}, "", algPS512, []int{0, 1, 3}},
		{"RSA: four cheap first", []*heldKey{rsaCheap(""), rsaCheap(""), rsaCheap(""), rsaCheap(""), rsaDear("")}, "", algRS256, []int{0, 1, 2, 3}},
		{"kid shared by P-521 keys", []*heldKey{p521("a"), p521("a"), p521("a")}, "a", algES512, []int{0}},
		{"kid names one P-521 key among others", []*heldKey{p521("a"), p521("b")}, "b", algES512, []int{1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, reason := newKeySet(c.keys, false).candidates(c.kid, c.a, nil)
			if reason != "" || len(got) != len(c.want) {
				t.Fatalf("got %d keys (%s); want %d", len(got), reason, len(c.want))
			}
			for i, j := range c.want {
				if got[i] != c.keys[j] {
					t.Fatalf("try %d is not key %d", i, j)
				}
			}
		})
	}
}

// The cost classes: P-384, P-521 and RSA from 3072 bits are expensive.
func TestHeldKeyExpensive(t *testing.T) {
	k := keys(t)
	cases := []struct {
		name string
		key  crypto.PublicKey
		want bool
	}{
		{"P-256", &k.p256.PublicKey, false},
		{"P-384", &k.p384.PublicKey, true},
		{"P-521", &k.p521.PublicKey, true},
		{"Ed25519", k.ed.Public(), false},
		{"RSA 2048", &k.rsa.PublicKey, false},
		{"RSA 3071", &rsa.PublicKey{N: oddModulus(3071), E: 65537}, false},
		{"RSA 3072", &rsa.PublicKey{N: oddModulus(3072), E: 65537}, true},
		{"RSA 4096", &rsa.PublicKey{N: oddModulus(4096), E: 65537}, true},
	}
	for _, c := range cases {
		h, err := newHeldKey(c.key, "", "")
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if h.expensive != c.want {
			t.Errorf("%s: expensive %v", c.name, h.expensive)
		}
	}
}

// fillBudget takes every slot of v's budget; the returned func gives them
// back.
func fillBudget(t *testing.T, v *JWTVerifier) func() {
	t.Helper()
	n := v.budget.size
	for range n {
		if err := v.budget.acquire(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	return func() {
		for range n {
			v.budget.release()
		}
	}
}

// Regression: issue 14 item 2.
// When no slot frees within VerificationWait, a fresh token is answered
// ErrBusy (not a *TokenError, so bans cannot count it) while a cached
// token is served untouched; with the budget back, the fresh token
// verifies.
func TestVerifyOverBudgetIsBusyAndCachedTokensFlow(t *testing.T) {
	k := keys(t)
	v := KeySet(testIssuer, testAudience, []crypto.PublicKey{&k.p256.PublicKey}, Clock(fixedClock()),
		MaxConcurrentVerifications(2), VerificationWait(time.Millisecond))
	cached := joseSign(t, jose.ES256, k.p256, "", validClaims())
	if _, err := v.Verify(context.Background(), cached); err != nil {
		t.Fatal(err)
	}
	claims := validClaims()
	claims["sub"] = "bob"
	fresh := joseSign(t, jose.ES256, k.p256, "", claims)
	giveBack := fillBudget(t, v)
	_, err := v.Verify(context.Background(), fresh)
	var te *TokenError
	if !errors.Is(err, ErrBusy) || errors.As(err, &te) || !strings.Contains(err.Error(), "bearer.VerificationWait") {
		t.Fatalf("over budget: %v", err)
	}
	if p, err := v.Verify(context.Background(), cached); err != nil || !p.Authenticated {
		t.Fatalf("a cached token over budget: %v", err)
	}
	// A forged or malformed token refused before its signature needs no
	// budget either.
	if _, err := v.Verify(context.Background(), "not.a.token"); errors.Is(err, ErrBusy) {
		t.Fatal("a malformed token waited for the budget")
	}
	if n := v.budget.waiting(); n != 0 {
		t.Fatalf("%d still counted as waiting after the wait ended", n)
	}
	giveBack()
	if p, err := v.Verify(context.Background(), fresh); err != nil || p.Subject != "bob" {
		t.Fatalf("with the budget back: %v", err)
	}
	if n := v.budget.held(); n != 0 {
		t.Fatalf("%d slots still held after the verifications", n)
	}
}

// Regression: issue 14 item 2.
// With every slot taken, a fresh verification waits for a slot and then
// runs; its request's context bounds the wait.
func TestVerifyWaitsForASlotBoundedByContext(t *testing.T) {
	k := keys(t)
	v := KeySet(testIssuer, testAudience, []crypto.PublicKey{&k.p256.PublicKey}, Clock(fixedClock()), MaxConcurrentVerifications(1))
	tok := joseSign(t, jose.ES256, k.p256, "", validClaims())
	giveBack := fillBudget(t, v)
	done := make(chan error, 1)
	go func() {
		_, err := v.Verify(context.Background(), tok)
		done <- err
	}()
	waitFor(t, func() bool { return v.budget.waiting() == 1 })
	select {
	case err := <-done:
		t.Fatalf("verified without a slot: %v", err)
	default:
	}
	giveBack()
	if err := <-done; err != nil {
		t.Fatal(err)
	}

	giveBack = fillBudget(t, v)
	defer giveBack()
	ctx, cancel := context.WithCancel(context.Background())
	claims := validClaims()
	claims["sub"] = "carol"
	tok = joseSign(t, jose.ES256, k.p256, "", claims)
	go func() {
		_, err := v.Verify(ctx, tok)
		done <- err
	}()
	waitFor(t, func() bool { return v.budget.waiting() == 1 })
	cancel()
	if err := <-done; !errors.Is(err, ErrBusy) || !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled while waiting: %v", err)
	}
	if n := v.budget.waiting(); n != 0 {
		t.Fatalf("%d still counted as waiting", n)
	}
}

// waitFor polls cond; the deadline only stops a broken test from hanging.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition never met")
		}
		time.Sleep(time.Millisecond)
	}
}

func TestMaxConcurrentVerificationsOption(t *testing.T) {
	k := keys(t)
	held := []crypto.PublicKey{&k.p256.PublicKey}
	if v := KeySet(testIssuer, testAudience, held); v.budget.size != runtime.GOMAXPROCS(0) || v.budget.wait != defaultVerificationWait {
		t.Fatalf("default budget %d slots, wait %s", v.budget.size, v.budget.wait)
	}
	if v := KeySet(testIssuer, testAudience, held, MaxConcurrentVerifications(3), VerificationWait(time.Minute)); v.budget.size != 3 || v.budget.wait != time.Minute {
		t.Fatalf("budget %d slots, wait %s", v.budget.size, v.budget.wait)
	}
	cases := []struct {
		setting string
		opt     VerifierOption
	}{
		{"MaxConcurrentVerifications", MaxConcurrentVerifications(0)},
		{"MaxConcurrentVerifications", MaxConcurrentVerifications(-1)},
		{"VerificationWait", VerificationWait(0)},
		{"VerificationWait", VerificationWait(-time.Second)},
	}
	for _, c := range cases {
		err := KeySet(testIssuer, testAudience, held, c.opt).Open(context.Background())
		var ce *ConfigError
		if !errors.As(err, &ce) || ce.Setting != c.setting {
			t.Fatalf("%s: %v", c.setting, err)
		}
	}
}

// Regression: issue 14 item 2.
// By default no unsigned input can cost more than about ten fresh ES256
// verifications: ES512 (one P-521 check costs about thirty) is refused
// before any key work unless Algorithms names it, and RSA keys above 4096
// bits (an 8192-bit check costs about fifteen) are not used.
func TestDefaultsRefuseWhatCostsMoreThanTenES256Verifications(t *testing.T) {
	k := keys(t)
	v := KeySet(testIssuer, testAudience, []crypto.PublicKey{&k.p521.PublicKey}, Clock(fixedClock()))
	if r := reasonOf(t, mustErr(v.Verify(context.Background(), joseSign(t, jose.ES512, k.p521, "", validClaims())))); r != ReasonAlgorithm {
		t.Fatalf("ES512 by default: reason %s, want algorithm (refused before the P-521 check)", r)
	}
	opted := KeySet(testIssuer, testAudience, []crypto.PublicKey{&k.p521.PublicKey}, Clock(fixedClock()), Algorithms("ES256", "ES512"))
	if _, err := opted.Verify(context.Background(), joseSign(t, jose.ES512, k.p521, "", validClaims())); err != nil {
		t.Fatalf("ES512 named in Algorithms: %v", err)
	}
	if _, err := newHeldKey(&rsa.PublicKey{N: oddModulus(8192), E: 65537}, "", ""); err == nil || !strings.Contains(err.Error(), "above 4096") {
		t.Fatalf("an RSA-8192 key: %v, want refused above 4096 bits", err)
	}
}

func mustErr(_ Principal, err error) error { return err }
