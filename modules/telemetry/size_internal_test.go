package telemetry

import (
	"reflect"
	"testing"
)

// The wrapper allocates its context node on every request with an ID
// (#24 item 18): it must stay in the 256-byte size class, the next being
// 288, and every byte more is the collector's work on every request.
func TestRequestContextFitsItsSizeClass(t *testing.T) {
	if size := reflect.TypeFor[requestContext]().Size(); size > 256 {
		t.Fatalf("requestContext is %d bytes, over the 256-byte size class: keep telemetry-only fields out of it", size)
	}
}
