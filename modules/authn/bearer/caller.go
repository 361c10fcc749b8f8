package bearer

import (
	"context"
	"fmt"
	"time"
)

// Caller is who a verification is for, as a gate hands it to Verify in
// the context (ContextWithCaller). A verifier used alone needs none: every
// caller then shares one queue and none is held.
type Caller interface {
	// FairnessKey is the key a fresh verification that must wait for the
	// budget (MaxConcurrentVerifications) is queued under, the turns taken
	// round-robin between keys: the client's address. It is asked only
	// when a verification waits, so a cached one never works it out.
	FairnessKey() string
	// IntrospectionHeld reports whether the caller may cause no new
	// introspection request now, and for how long: the gate holds a
	// caller whose inactive opaque tokens spent its flood budget.
	IntrospectionHeld() (time.Duration, bool)
}

// CallerKey is the context key a Caller is stored under. It is exported
// so that the gate can answer it from a context node it already has
// (one allocation less per request); anyone else uses ContextWithCaller.
type CallerKey struct{}

// ContextWithCaller returns a copy of ctx carrying c for Verify.
func ContextWithCaller(ctx context.Context, c Caller) context.Context {
	return context.WithValue(ctx, CallerKey{}, c)
}

// callerOf is the Caller ctx carries, nil for none.
func callerOf(ctx context.Context) Caller {
	c, _ := ctx.Value(CallerKey{}).(Caller)
	return c
}

// fairnessKeyOf is the fairness key of ctx's caller; "" (one queue shared
// by every caller) without one.
func fairnessKeyOf(ctx context.Context) string {
	if c := callerOf(ctx); c != nil {
		return c.FairnessKey()
	}
	return ""
}

// HeldError is what Verify returns for an opaque token that would need a
// new introspection request from a caller its Caller says is held. The
// gate answers it 429 rate-limit-exceeded with Retry-After: Wait.
type HeldError struct{ Wait time.Duration }

func (e *HeldError) Error() string {
	return fmt.Sprintf("authn: no introspection for this client for %s: its inactive tokens spent its flood budget (authn.Flood)", e.Wait.Round(time.Millisecond))
}
