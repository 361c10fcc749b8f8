package tracingtest_test

import "testing"

// An Example has no *testing.T: the example's test function runs here.
func TestExampleNewReceiver(t *testing.T) { testChargeIsTraced(t) }
