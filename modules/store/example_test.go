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
// serves all three.
func ExampleNewMemory() {
	m := store.NewMemory(store.MaxCacheSize(8 << 20))
	var (
		_ store.Rates       = m
		_ store.Idempotency = m
		_ store.Cache       = m
	)
}
