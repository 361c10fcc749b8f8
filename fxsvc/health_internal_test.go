package fxsvc

import (
	"context"
	"slices"
	"testing"
	"time"

	"go.uber.org/zap"
)

// A check that ignores its context fails the probe once the probe's bound
// ends: the probe answers 503 instead of hanging with the check.
func TestReadinessProbeDoesNotWaitForACheckThatIgnoresItsContext(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	h := &health{log: zap.NewNop(), failing: "\x00", checks: []ReadinessCheck{
		{Name: "ok", Check: func(context.Context) error { return nil }},
		{Name: "stuck", Check: func(context.Context) error { <-release; return nil }},
	}}
	done := make(chan []string, 1)
	go func() { failing, _ := h.probe(context.Background()); done <- failing }()
	select {
	case failing := <-done:
		if !slices.Equal(failing, []string{"stuck"}) {
			t.Fatalf("failing %v, want [stuck]", failing)
		}
	case <-time.After(10 * readinessTimeout):
		t.Fatal("the probe waited for a check that ignores its context, past readinessTimeout")
	}
}
