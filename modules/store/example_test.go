package store_test

import (
	"context"
	"fmt"
	"time"

	"github.com/svckit/svc/modules/store"
)

// The in-memory store is what the components use when the app provides
// none; a store of your own implements the same small interfaces.
func ExampleMemory_Allow() {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	m := store.NewMemory(store.Clock(func() time.Time { return now }))
	k := store.Key{Space: "orders", Owner: "https://issuer.example", ID: "alice"}
	rate := store.Rate{Interval: time.Second, Burst: 2} // 1/s, up to 2 at once

	for range 3 {
		res, _ := m.Allow(context.Background(), k, rate)
		fmt.Println(res.Allowed, res.Remaining, res.RetryAfter)
	}
	// Output:
	// true 1 0s
	// true 0 0s
	// false 0 1s
}

// Every component takes its store as an interface, so the one Memory
// serves all three. MaxCacheSize bounds the cached responses: one larger
// than the bound is not stored.
func ExampleNewMemory() {
	m := store.NewMemory(store.MaxCacheSize(1 << 10)) // 1 KiB; the default is 64 MiB
	var (
		_ store.Rates       = m
		_ store.Idempotency = m
		_ store.Cache       = m
	)

	ctx := context.Background()
	for _, size := range []int{100, 4 << 10} {
		k := store.Key{Space: "cache", ID: fmt.Sprint("/report?size=", size)}
		e := store.Entry{Response: store.Response{Status: 200, Body: make([]byte, size)}, Stored: time.Now()}
		_ = m.Set(ctx, k, e, time.Minute)
		_, cached, _ := m.Get(ctx, k)
		fmt.Println(size, "bytes cached:", cached)
	}
	// Output:
	// 100 bytes cached: true
	// 4096 bytes cached: false
}
