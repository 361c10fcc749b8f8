package flood_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/svckit/svc/modules/authn/flood"
)

func TestBurstThenRefillPerAddress(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	l := flood.New(flood.Rate(2), flood.Burst(3), flood.Clock(func() time.Time { return now }))
	for i := 0; i < 3; i++ {
		if _, ok := l.Allow("a"); !ok {
			t.Fatalf("request %d refused inside the burst", i)
		}
	}
	wait, ok := l.Allow("a")
	if ok || wait <= 0 || wait > time.Second {
		t.Fatalf("over the burst: ok=%v wait=%v", ok, wait)
	}
	if _, ok := l.Allow("b"); !ok {
		t.Fatal("another address shares a's budget")
	}
	now = now.Add(500 * time.Millisecond) // one token at 2/s
	if _, ok := l.Allow("a"); !ok {
		t.Fatal("no refill")
	}
}

func TestTrackedAddressesAreBounded(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	l := flood.New(flood.Rate(1), flood.Burst(1), flood.MaxTracked(10), flood.Clock(func() time.Time { return now }))
	l.Allow("first")
	for i := 0; i < 1000; i++ {
		l.Allow(fmt.Sprintf("addr-%d", i))
	}
	// "first" was forgotten: it starts again with a full bucket.
	if _, ok := l.Allow("first"); !ok {
		t.Fatal("expected the oldest address to have been forgotten")
	}
}
