package svctest_test

import "testing"

// An Example has no *testing.T: the example's test function runs here.
func TestExampleStart(t *testing.T) { testOrders(t) }
