package reqfacts

import (
	"context"
	"sync"
	"testing"
	"time"
)

// The store calls of one request add up, from any of its goroutines,
// even on a context that outlives its cancellation; a context without a
// State has no total.
func TestStoreWaitAddsUpTheCallsOfOneRequest(t *testing.T) {
	if _, ok := StoreWait(context.Background()); ok {
		t.Fatal("a context without a State has a store wait")
	}
	AddStoreWait(context.Background(), time.Second) // nowhere to add: no panic

	ctx := context.WithoutCancel(With(context.Background(), &State{}))
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() { AddStoreWait(ctx, 250*time.Millisecond) })
	}
	wg.Wait()
	if d, ok := StoreWait(ctx); !ok || d != 2*time.Second {
		t.Fatalf("StoreWait = %v %v, want 2s", d, ok)
	}
	AddStoreWait(ctx, 1000*time.Hour) // saturates rather than wraps
	if d, _ := StoreWait(ctx); d < time.Hour {
		t.Fatalf("after a huge wait: %v", d)
	}
}
