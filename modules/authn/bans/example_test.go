package bans_test

import (
	"fmt"
	"time"

	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/bans"
	"github.com/svckit/svc/modules/authn/flood"
)

// Five forged tokens within a minute ban the address for fifteen minutes.
// The gate counts them; it is given the bans as an option:
// fxsvc.Authn(verifier, authn.Bans(b)), with fxsvc.TrustedProxies when the
// app sits behind proxies.
func ExampleNew() {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	b := bans.New(bans.Threshold(5), bans.Window(time.Minute), bans.Duration(15*time.Minute),
		bans.Clock(func() time.Time { return now }))
	_ = authn.Bans(b)

	for range 5 {
		b.Fail("203.0.113.7")
	}
	left, banned := b.Banned("203.0.113.7")
	fmt.Println(banned, left)
	_, banned = b.Banned("198.51.100.1")
	fmt.Println(banned)
	// Output:
	// true 15m0s
	// false
}

// Bans pair with a flood limit on the requests the gate must route to
// answer.
func ExampleNew_withFlood() {
	_ = []authn.Option{
		authn.Bans(bans.New()),
		authn.Flood(flood.New(flood.Rate(10), flood.Burst(20))),
	}
}
