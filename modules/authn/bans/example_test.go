package bans_test

import (
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
	b := bans.New(bans.Threshold(5), bans.Window(time.Minute), bans.Duration(15*time.Minute))
	_ = authn.Bans(b) // fxsvc.Authn(verifier, authn.Bans(b))
}

// Bans pair with a flood limit on the requests the gate must route to
// answer.
func ExampleNew_withFlood() {
	_ = []authn.Option{
		authn.Bans(bans.New()),
		authn.Flood(flood.New(flood.Rate(10), flood.Burst(20))),
	}
}
