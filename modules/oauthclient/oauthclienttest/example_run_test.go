package oauthclienttest_test

import "testing"

// An Example has no *testing.T: the example's test function runs here.
func TestExampleNewServer(t *testing.T) { testTokenServerDown(t) }
