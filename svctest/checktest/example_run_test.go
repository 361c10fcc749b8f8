package checktest_test

import "testing"

// An Example has no *testing.T: the example's test function runs here.
func TestExampleCheck(t *testing.T) { testRoutesAreGuarded(t) }
