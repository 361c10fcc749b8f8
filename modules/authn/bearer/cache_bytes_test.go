package bearer

import (
	"context"
	"crypto"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// denseTokens signs n distinct valid ES256 tokens of nearly
// defaultMaxTokenSize, packed with tiny claims and scopes: the most
// retained heap per token byte a caller can buy.
func denseTokens(t *testing.T, n int) []string {
	t.Helper()
	k := keys(t)
	var scopes strings.Builder
	for i := range 150 {
		fmt.Fprintf(&scopes, "s%d ", i)
	}
	out := make([]string, n)
	for i := range out {
		claims := validClaims()
		claims["jti"] = fmt.Sprintf("id-%d", i)
		claims["scope"] = scopes.String()
		for m := range 520 {
			claims[fmt.Sprintf("m%d", m)] = 1
		}
		out[i] = joseSign(t, jose.ES256, k.p256, "", claims)
		if len(out[i]) > defaultMaxTokenSize {
			t.Fatalf("dense token of %d bytes is over the size limit", len(out[i]))
		}
	}
	return out
}

func denseVerifier(t *testing.T, opts ...VerifierOption) *JWTVerifier {
	t.Helper()
	k := keys(t)
	opts = append([]VerifierOption{Clock(fixedClock())}, opts...)
	return KeySet(testIssuer, testAudience, []crypto.PublicKey{&k.p256.PublicKey}, opts...)
}

func verifyAll(t *testing.T, v *JWTVerifier, tokens []string) {
	t.Helper()
	for _, tok := range tokens {
		if _, err := v.Verify(context.Background(), tok); err != nil {
			t.Fatal(err)
		}
	}
}

// Regression: issue 14 item 7.
func TestCacheStaysWithinItsByteBudget(t *testing.T) {
	const budget = 2 << 20
	tokens := denseTokens(t, 120)
	v := denseVerifier(t, CacheBytes(budget))
	verifyAll(t, v, tokens)

	var sum uint64
	for _, e := range v.cache.m.All() {
		sum += uint64(e.cost)
	}
	n := v.cache.len()
	t.Logf("%d of %d dense tokens cached, %d bytes accounted, %d weighed", n, len(tokens), sum, v.cache.weight())
	if sum > budget || v.cache.weight() > budget {
		t.Fatalf("cache accounts %d bytes (weight %d), budget %d", sum, v.cache.weight(), budget)
	}
	if n == 0 || n >= len(tokens) {
		t.Fatalf("%d of %d tokens cached: no eviction, or nothing kept", n, len(tokens))
	}
	// A dense token weighs far more than its length: the estimate counts
	// the claims and scopes it keeps alive.
	if per := sum / uint64(n); per < 4*uint64(len(tokens[0])) {
		t.Fatalf("a dense token weighs %d bytes, under 4x its %d bytes", per, len(tokens[0]))
	}
}

// TestCacheCostCoversTheHeap measures what cached dense tokens really keep
// alive and checks the estimate is not below it (the budget would then not
// bound the heap) nor wildly above it (the budget would hold too little).
// The bounds are loose, so allocations elsewhere in the process do not make
// it flaky.
func TestCacheCostCoversTheHeap(t *testing.T) {
	if testing.Short() {
		t.Skip("signs hundreds of tokens")
	}
	const n = 150
	v := denseVerifier(t)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	tokens := denseTokens(t, n)
	verifyAll(t, v, tokens)
	tokens = nil // the cache's keys are now the only references
	runtime.GC()
	runtime.ReadMemStats(&after)
	if v.cache.len() != n {
		t.Fatalf("%d of %d cached", v.cache.len(), n)
	}
	heap := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	est := int64(v.cache.weight())
	t.Logf("heap grew %d bytes for %d entries; estimated %d (%.2fx)", heap, n, est, float64(est)/float64(heap))
	if est < heap*9/10 {
		t.Errorf("estimate %d is under the heap's %d", est, heap)
	}
	if est > heap*4 {
		t.Errorf("estimate %d is over 4x the heap's %d", est, heap)
	}
	runtime.KeepAlive(v)
	runtime.KeepAlive(tokens)
}

func TestCacheBytesZeroTurnsTheCacheOff(t *testing.T) {
	v := denseVerifier(t, CacheBytes(0))
	if v.cache != nil {
		t.Fatal("CacheBytes(0) left a cache")
	}
	if err := denseVerifier(t, CacheBytes(-1)).Open(context.Background()); err == nil || !strings.Contains(err.Error(), "CacheBytes") {
		t.Fatalf("CacheBytes(-1): %v", err)
	}
}

// Regression: issue 14 item 15.
func TestCacheHoldsTenThousandCallersByDefault(t *testing.T) {
	// 10,000 distinct ~1 KiB tokens with a typical handful of claims, sent
	// round-robin: with the default budget every one stays cached, so the
	// second round is all hits (the former cap of 4,096 entries with random
	// eviction hit 14% of the time).
	const callers = 10000
	c := newVerifyCache(defaultCacheBytes)
	k := testHeldKey(t)
	raw := map[string]json.RawMessage{}
	for _, name := range []string{"iss", "sub", "aud", "exp", "iat", "nbf", "jti", "scope", "client_id", "azp"} {
		raw[name] = json.RawMessage(`"x"`)
	}
	p := Principal{Subject: "s", Scopes: NewScopes("read", "write"), Claims: &Claims{Raw: raw}, Authenticated: true}
	pad := strings.Repeat("x", 1000)
	until := testNow.Add(time.Hour)
	for round := range 2 {
		hits := 0
		for i := range callers {
			tok := fmt.Sprintf("%s%05d", pad, i)
			if _, ok := c.get(tok, testNow); ok {
				hits++
				continue
			}
			c.put(tok, p, until, k, testNow)
		}
		if round == 1 && hits != callers {
			t.Fatalf("second round: %d of %d hits (%d cached, %d bytes)", hits, callers, c.len(), c.weight())
		}
	}
}

// Regression: issue 14 item 15.
func TestCacheKeepsReturningCallersThroughAScan(t *testing.T) {
	// Room for twice the returning callers; every request of one of them
	// comes with a one-off token. The former sharded cache (random
	// eviction, same room in entries) hit 43% of the time here; W-TinyLFU
	// does not admit the one-off tokens over entries that are used again.
	const hot, steps = 1000, 200000
	p := Principal{Subject: "s", Authenticated: true}
	c := newVerifyCache(2 * hot * int64(entryCost("hot-00000", p)))
	k := testHeldKey(t)
	until := testNow.Add(time.Hour)
	hits, gets := 0, 0
	for i := range steps {
		once := fmt.Sprintf("once-%06d", i)
		if _, ok := c.get(once, testNow); !ok {
			c.put(once, p, until, k, testNow)
		}
		tok := fmt.Sprintf("hot-%05d", i%hot)
		_, ok := c.get(tok, testNow)
		if !ok {
			c.put(tok, p, until, k, testNow)
		}
		if i >= steps/2 {
			gets++
			if ok {
				hits++
			}
		}
	}
	if ratio := float64(hits) / float64(gets); ratio < 0.95 {
		t.Fatalf("returning callers hit %.3f of the time through the scan", ratio)
	}
}
