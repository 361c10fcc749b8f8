package flood_test

import (
	"fmt"
	"time"

	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/flood"
)

// Ten requests a second per address, twenty at once; the gate is given it
// as an option: fxsvc.Authn(verifier, authn.Flood(l)).
func ExampleNew() {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	l := flood.New(flood.Rate(10), flood.Burst(2), flood.Clock(func() time.Time { return now }))
	_ = authn.Flood(l)

	for range 3 {
		retry, ok := l.Allow("203.0.113.7")
		fmt.Println(ok, retry)
	}
	// Output:
	// true 0s
	// true 0s
	// false 100ms
}
