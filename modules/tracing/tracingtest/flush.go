package tracingtest

import (
	"context"
	"testing"

	"github.com/svckit/svc/modules/tracing"
)

// Flush exports every span tr has ended so far, now, and fails the test if
// tr is not open and active or the export fails. A receiver holds the
// spans once Flush returns.
func Flush(t testing.TB, tr *tracing.Tracing) {
	t.Helper()
	p, err := tr.Provider()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.ForceFlush(context.Background()); err != nil {
		t.Fatal(err)
	}
}
