package authn

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// What the gate does about opaque tokens. Each random string sent as a
// token costs an introspection request, so an inactive answer that a
// caller's request fetched counts against that caller as a forged
// signature does: one failure toward its ban (authn.Bans) and one request
// of its flood budget (authn.Flood). Once inactive answers have spent the
// budget, the caller's opaque tokens that would need a new request are
// refused 429 without one until the budget refills, so that one client
// cannot make the service an amplifier against the issuer's endpoint.

// opaqueNotWantedDetail is the body's detail for an opaque token sent to
// a gate whose verifier introspects none (errOpaqueNotWanted).
const opaqueNotWantedDetail = "The bearer token is opaque (not a JWT), and this service introspects no issuer's opaque tokens. Send a JWT access token from a trusted issuer."

// tokenRefusal is the gate's refusal of a token its verifier refused.
func tokenRefusal(te *TokenError) *Refusal {
	ref := &Refusal{Kind: KindTokenRejected, Reason: te.Reason}
	if errors.Is(te, errOpaqueNotWanted) {
		ref.detail = opaqueNotWantedDetail
	}
	return ref
}

// judged counts a refused token against q's caller: a forged signature,
// or an inactive answer its request fetched from the endpoint (never one
// from a cache, nor one it waited for with others), toward its ban; the
// latter also spends its flood budget, and once that is spent the caller
// is held.
func (g *Gate) judged(q *gateRequest, te *TokenError) {
	asked := errors.Is(te, errInactiveAsked)
	if g.bans != nil && (te.Reason.forged() || asked) {
		if s, started := g.bans.Fail(q.address()); started {
			g.writeBanStarted(q.address(), s)
			g.countBanStarted(q.r.Context())
		}
	}
	if asked && g.flood != nil {
		if wait, ok := g.flood.Allow(q.address()); !ok {
			g.holds.hold(q.address(), wait)
		}
	}
}

// heldError is what Verify returns, under the gate, for an opaque token
// that would need a new introspection request from a caller the gate
// holds. The gate answers it 429 rate-limit-exceeded with Retry-After.
type heldError struct{ wait time.Duration }

func (e *heldError) Error() string {
	return fmt.Sprintf("authn: no introspection for this client for %s: its inactive tokens spent its flood budget (authn.Flood)", e.wait.Round(time.Millisecond))
}

// introspectionHolder is the gate's request in Verify's context (beside
// the budget key): it says whether its caller is held.
type introspectionHolder interface {
	introspectionHeld() (time.Duration, bool)
}

// introspectionHeld reports whether ctx's caller is held, and for how
// long; never outside the gate.
func introspectionHeld(ctx context.Context) (time.Duration, bool) {
	if h, ok := ctx.Value(budgetKeyCtxKey{}).(introspectionHolder); ok {
		return h.introspectionHeld()
	}
	return 0, false
}

func (q *gateRequest) introspectionHeld() (time.Duration, bool) {
	if q.g.holds == nil {
		return 0, false
	}
	return q.g.holds.held(q.address())
}

// introspectionHolds are the callers whose flood budget inactive answers
// spent, until it refills. At most maxRecordKeys are held: past it, the
// lapsed ones are forgotten, then any (spraying addresses is the
// ingress's business, as for security records).
type introspectionHolds struct {
	now   func() time.Time
	mu    sync.Mutex
	until map[string]time.Time
}

func newIntrospectionHolds(now func() time.Time) *introspectionHolds {
	return &introspectionHolds{now: now, until: map[string]time.Time{}}
}

func (h *introspectionHolds) hold(addr string, wait time.Duration) {
	now := h.now()
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.until[addr]; !ok && len(h.until) >= maxRecordKeys {
		for a, t := range h.until {
			if !now.Before(t) {
				delete(h.until, a)
			}
		}
		for a := range h.until {
			if len(h.until) < maxRecordKeys {
				break
			}
			delete(h.until, a)
		}
	}
	h.until[addr] = now.Add(wait)
}

func (h *introspectionHolds) held(addr string) (time.Duration, bool) {
	now := h.now()
	h.mu.Lock()
	defer h.mu.Unlock()
	until, ok := h.until[addr]
	if !ok {
		return 0, false
	}
	if wait := until.Sub(now); wait > 0 {
		return wait, true
	}
	delete(h.until, addr)
	return 0, false
}
