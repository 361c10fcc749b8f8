package bearer

import (
	"context"
	"crypto"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
)

func testHeldKey(t *testing.T) *heldKey {
	k, err := newHeldKey(&keys(t).p256.PublicKey, "k", "")
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestCacheHitNeedsTheWholeToken(t *testing.T) {
	c := newVerifyCache(1 << 20)
	k := testHeldKey(t)
	now := testNow
	c.put("token-a", Principal{Subject: "a", Authenticated: true}, now.Add(time.Hour), k, now)
	if p, ok := c.get("token-a", now); !ok || p.Subject != "a" {
		t.Fatalf("hit = %v %+v", ok, p)
	}
	// Near misses: the entry answers for its own token only.
	for _, other := range []string{"token-b", "token-", "token-aa", "Token-a", ""} {
		if p, ok := c.get(other, now); ok {
			t.Errorf("%q answered with %+v", other, p)
		}
	}
}

func TestCacheEntryEndsAtExpiry(t *testing.T) {
	c := newVerifyCache(1 << 20)
	k := testHeldKey(t)
	c.put("t", Principal{Subject: "a"}, testNow.Add(time.Minute), k, testNow)
	if _, ok := c.get("t", testNow.Add(time.Minute-time.Nanosecond)); !ok {
		t.Fatal("miss before expiry")
	}
	if _, ok := c.get("t", testNow.Add(time.Minute)); ok {
		t.Fatal("hit at expiry")
	}
	if c.len() != 0 {
		t.Fatal("expired entry kept")
	}
}

func TestCacheDropsEntriesOfARetiredKey(t *testing.T) {
	c := newVerifyCache(1 << 20)
	k := testHeldKey(t)
	c.put("t", Principal{Subject: "a"}, testNow.Add(time.Hour), k, testNow)
	k.retired.Store(true)
	if _, ok := c.get("t", testNow); ok {
		t.Fatal("entry of a retired key answered")
	}
}

func TestCachePutSkipsAStaleToken(t *testing.T) {
	c := newVerifyCache(1 << 20)
	c.put("t", Principal{Subject: "a"}, testNow, testHeldKey(t), testNow)
	if c.len() != 0 {
		t.Fatal("a token stale when verified was cached")
	}
}

func TestCacheBudgetZeroTurnsTheCacheOff(t *testing.T) {
	if newVerifyCache(0) != nil {
		t.Fatal("a cache of 0 bytes")
	}
	var c *verifyCache
	c.put("t", Principal{}, testNow.Add(time.Hour), testHeldKey(t), testNow)
	if _, ok := c.get("t", testNow); ok {
		t.Fatal("nil cache answered")
	}
}

func TestVerifierCachesUntilExpiryAndAnswersFast(t *testing.T) {
	k := keys(t)
	now := testNow
	clock := func() time.Time { return now }
	v := KeySet(testIssuer, testAudience, []crypto.PublicKey{&k.p256.PublicKey}, Clock(clock), Leeway(0))
	claims := validClaims()
	claims["exp"] = testNow.Add(time.Minute).Unix()
	tok := joseSign(t, jose.ES256, k.p256, "", claims)
	p1, err := v.Verify(context.Background(), tok)
	if err != nil {
		t.Fatal(err)
	}
	p2, err := v.Verify(context.Background(), tok)
	if err != nil || p2.Claims != p1.Claims {
		t.Fatalf("second verification not served from the cache (%v)", err)
	}
	allocs := testing.AllocsPerRun(100, func() { v.Verify(context.Background(), tok) })
	if allocs > 1 {
		t.Errorf("cache hit allocates %.0f times", allocs)
	}
	now = testNow.Add(time.Minute)
	if _, err := v.Verify(context.Background(), tok); reasonOf(t, err) != ReasonExpired {
		t.Fatalf("after exp: %v", err)
	}
}

func TestVerifierCacheOffVerifiesEveryTime(t *testing.T) {
	k := keys(t)
	v := KeySet(testIssuer, testAudience, []crypto.PublicKey{&k.p256.PublicKey}, Clock(fixedClock()), CacheBytes(0))
	tok := joseSign(t, jose.ES256, k.p256, "", validClaims())
	p1, _ := v.Verify(context.Background(), tok)
	p2, _ := v.Verify(context.Background(), tok)
	if p1.Claims == p2.Claims {
		t.Fatal("answered from a cache that is off")
	}
}

func TestCacheStartsNoGoroutineAndStaysBoundedUnderConcurrentUse(t *testing.T) {
	p := Principal{Subject: "s", Authenticated: true}
	budget := 100 * int64(entryCost("token-0-00000", p))
	c := newVerifyCache(budget)
	k := testHeldKey(t)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 5000 {
				tok := fmt.Sprintf("token-%d-%05d", g, i%300)
				if _, ok := c.get(tok, testNow); !ok {
					c.put(tok, p, testNow.Add(time.Hour), k, testNow)
				}
			}
		})
	}
	wg.Wait()
	if w := c.weight(); w > uint64(budget) || w == 0 {
		t.Fatalf("weight %d, budget %d", w, budget)
	}
	// The workers have returned: no goroutine may be running otter code.
	// (Counting goroutines instead would see other tests' stragglers.)
	buf := make([]byte, 1<<20)
	if stacks := string(buf[:runtime.Stack(buf, true)]); strings.Contains(stacks, "maypok86/otter") {
		t.Fatalf("a goroutine runs otter code:\n%s", stacks)
	}
}

// A NumericDate is accepted up to year 9999, but UnixNano is undefined
// past 2262: a token valid beyond that must still be served from the cache
// (it used to wrap to a past instant, so every request verified afresh).
func TestCacheKeepsATokenValidPast2262(t *testing.T) {
	c := newVerifyCache(1 << 20)
	k := testHeldKey(t)
	for _, until := range []time.Time{time.Date(2300, 1, 1, 0, 0, 0, 0, time.UTC), time.Unix(maxNumericDate, 0).Add(defaultLeeway)} {
		c.put("t", Principal{Subject: "a"}, until, k, testNow)
		if _, ok := c.get("t", testNow); !ok {
			t.Fatalf("entry until %v missed", until)
		}
	}

	v := KeySet(testIssuer, testAudience, []crypto.PublicKey{&keys(t).p256.PublicKey}, Clock(fixedClock()))
	claims := validClaims()
	claims["exp"] = time.Date(2300, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	tok := joseSign(t, jose.ES256, keys(t).p256, "", claims)
	p1, err := v.Verify(context.Background(), tok)
	if err != nil {
		t.Fatal(err)
	}
	if p2, err := v.Verify(context.Background(), tok); err != nil || p2.Claims != p1.Claims {
		t.Fatalf("a token valid until 2300 was not served from the cache (%v)", err)
	}
}
