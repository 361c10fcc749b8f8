package authn

import (
	"errors"
	"sync"
	"time"

	"github.com/svckit/svc/modules/authn/bearer"
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
func tokenRefusal(te *bearer.TokenError) *Refusal {
	ref := &Refusal{Kind: KindTokenRejected, Reason: te.Reason, audience: diagnoseAudience(te)}
	if errors.Is(te, bearer.ErrOpaqueNotIntrospected) {
		ref.detail = opaqueNotWantedDetail
	}
	return ref
}

// judged counts a refused token against q's caller: a forged signature,
// or an inactive answer its request fetched from the endpoint (never one
// from a cache, nor one it waited for with others), toward its ban; the
// latter also spends its flood budget, and once that is spent the caller
// is held.
func (g *Gate) judged(q *gateRequest, te *bearer.TokenError) {
	asked := errors.Is(te, bearer.ErrInactiveFetched)
	if g.bans != nil && (te.Reason.Forged() || asked) {
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

// IntrospectionHeld reports whether q's caller is held, and for how long
// (bearer.Caller).
func (q *gateRequest) IntrospectionHeld() (time.Duration, bool) {
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
