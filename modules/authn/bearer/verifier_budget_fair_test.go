package bearer

import (
	"context"
	"crypto"
	"crypto/rand"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// budgetKeyString is a fairness key as the gate hands it over.
type budgetKeyString string

func (k budgetKeyString) FairnessKey() string                    { return string(k) }
func (budgetKeyString) IntrospectionHeld() (time.Duration, bool) { return 0, false }

func keyed(key string) context.Context {
	return ContextWithCaller(context.Background(), budgetKeyString(key))
}

// Regression: issue 25 item 2.
// A freed slot goes to the next key in turn, not to the longest queue:
// with a hundred waiters from each of two flooding addresses queued first,
// a third address is served by the third slot freed.
func TestBudgetServesKeysInTurn(t *testing.T) {
	b := newVerifyBudget(1, time.Minute)
	if err := b.acquire(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	served := make(chan string, 250)
	var wg sync.WaitGroup
	wait := func(key string) {
		wg.Go(func() {
			if b.acquire(ContextWithCaller(ctx, budgetKeyString(key))) == nil {
				served <- key
			}
		})
	}
	for range 100 {
		wait("203.0.113.1")
	}
	waitFor(t, func() bool { return b.waiting() == 100 })
	for range 100 {
		wait("203.0.113.2")
	}
	waitFor(t, func() bool { return b.waiting() == 200 })
	wait("198.51.100.7")
	waitFor(t, func() bool { return b.waiting() == 201 })

	var order []string
	for range 3 {
		b.release() // the holder's slot, then each served waiter's
		order = append(order, <-served)
	}
	if order[2] != "198.51.100.7" {
		t.Fatalf("slots went to %v: the third address waited behind a flood", order)
	}
	if order[0] == order[1] {
		t.Fatalf("slots went to %v: one address was served twice in a row while another waited", order)
	}
	cancel()
	wg.Wait()
	if n := b.waiting(); n != 0 {
		t.Fatalf("%d waiters left after their requests ended", n)
	}
	b.release()
	if n := b.held(); n != 0 {
		t.Fatalf("%d slots held after every holder released", n)
	}
}

// A waiter that gives up loses nothing: its place is skipped, and the slot
// it would have had goes to the next waiter or back to the pool.
func TestBudgetWaiterGivingUpLosesNoSlot(t *testing.T) {
	b := newVerifyBudget(1, time.Millisecond)
	if err := b.acquire(context.Background()); err != nil {
		t.Fatal(err)
	}
	err := b.acquire(keyed("a"))
	if !errors.Is(err, ErrBusy) || !strings.Contains(err.Error(), "waited 1ms for one of 1 slots") {
		t.Fatalf("waited past VerificationWait: %v", err)
	}
	b.release()
	if n := b.held(); n != 0 {
		t.Fatalf("%d slots held: the slot went to a waiter that had left", n)
	}
	if err := b.acquire(keyed("b")); err != nil {
		t.Fatalf("the slot back in the pool: %v", err)
	}
	b.release()
}

// withProcs runs the test with GOMAXPROCS at n, so the budget's default
// is what a small host gets.
func withProcs(t *testing.T, n int) {
	prev := runtime.GOMAXPROCS(n)
	t.Cleanup(func() { runtime.GOMAXPROCS(prev) })
}

// distinctTokens signs n valid ES256 tokens for n subjects.
func distinctTokens(t *testing.T, n int) []string {
	k := keys(t)
	toks := make([]string, n)
	for i := range toks {
		c := validClaims()
		c["sub"] = fmt.Sprintf("caller-%d", i)
		toks[i] = joseSign(t, jose.ES256, k.p256, "", c)
	}
	return toks
}

// Regression: issue 25 item 2.
// A cold start: 64 callers with distinct valid tokens at once on a
// 2-core host (the default budget: 2 slots), all arriving while both
// slots are busy, are all served.
func TestColdStartBurstOfValidTokensIsServed(t *testing.T) {
	withProcs(t, 2)
	k := keys(t)
	v := KeySet(testIssuer, testAudience, []crypto.PublicKey{&k.p256.PublicKey}, Clock(fixedClock()))
	if v.budget.size != 2 {
		t.Fatalf("budget of %d slots, want GOMAXPROCS", v.budget.size)
	}
	toks := distinctTokens(t, 64)
	giveBack := fillBudget(t, v) // two verifications already running
	errs := make(chan error, len(toks))
	var done atomic.Int64
	var wg sync.WaitGroup
	for i, tok := range toks {
		wg.Go(func() {
			_, err := v.Verify(keyed(fmt.Sprintf("192.0.2.%d", i%4)), tok)
			errs <- err
			done.Add(1)
		})
	}
	// Every caller has either queued or been answered before a slot frees.
	waitFor(t, func() bool { return int64(v.budget.waiting())+done.Load() == int64(len(toks)) })
	giveBack()
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("a valid caller at a cold start: %v", err)
		}
	}
}

// Regression: issue 25 item 2.
// Beside a flood of forged tokens (signatures that reach the check and
// fail) from two addresses, with more forgeries waiting than slots, 64
// valid callers from other addresses are each served within the
// documented wait: none is answered ErrBusy.
func TestForgedFloodFromTwoAddressesLeavesOthersServed(t *testing.T) {
	withProcs(t, 2)
	k := keys(t)
	v := KeySet(testIssuer, testAudience, []crypto.PublicKey{&k.p256.PublicKey}, Clock(fixedClock()))
	good := joseSign(t, jose.ES256, k.p256, "", validClaims())
	sig := make([]byte, 64)
	if _, err := rand.Read(sig); err != nil {
		t.Fatal(err)
	}
	forged := good[:strings.LastIndexByte(good, '.')+1] + b64.EncodeToString(sig)
	if r := reasonOf(t, mustErr(v.Verify(context.Background(), forged))); r != ReasonSignature {
		t.Fatalf("the forgery is refused as %s, want signature (it must reach the check)", r)
	}

	ctx, stop := context.WithCancel(context.Background())
	var flood sync.WaitGroup
	for _, addr := range []string{"203.0.113.1", "203.0.113.2"} {
		fctx := ContextWithCaller(ctx, budgetKeyString(addr))
		for range 100 {
			flood.Go(func() {
				for ctx.Err() == nil {
					_, _ = v.Verify(fctx, forged)
				}
			})
		}
	}
	defer func() { stop(); flood.Wait() }()
	waitFor(t, func() bool { return v.budget.waiting() >= 50 })

	toks := distinctTokens(t, 64)
	errs := make(chan error, len(toks))
	var wg sync.WaitGroup
	for i, tok := range toks {
		wg.Go(func() {
			_, err := v.Verify(keyed(fmt.Sprintf("198.51.100.%d", i)), tok)
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("a valid caller beside the flood: %v", err)
		}
	}
}
