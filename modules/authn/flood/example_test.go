package flood_test

import (
	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/flood"
)

// Ten requests a second per address, twenty at once; the gate is given it
// as an option: fxsvc.Authn(verifier, authn.Flood(l)).
func ExampleNew() {
	l := flood.New(flood.Rate(10), flood.Burst(20))
	_ = authn.Flood(l) // fxsvc.Authn(verifier, authn.Flood(l))
}
