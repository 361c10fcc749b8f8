package authn

import (
	"net/http"
	"slices"

	"github.com/svckit/svc/modules/authn/bearer"
)

// KindActorRefused is the refusal of a verified token whose delegation
// chain ([Principal.Actors]) the gate's [Actors] policy does not accept:
// 403, no challenge (a new token from the same chain would fare no
// better), counted and recorded as an authorization refusal.
const KindActorRefused RefusalKind = "actor-refused"

// Actors bounds the delegation chains the gate accepts (RFC 8693 §4.1 act
// claims: a service calling on a user's behalf). A token whose chain is
// deeper than maxDepth, or names at level i an actor whose sub is not in
// allowed[i] (level 0 is the current actor, the one that called), is
// refused 403 actor-refused; a level with no list, or an empty one,
// accepts any actor. A listed sub names an actor of the token's own
// issuer: an actor matches an entry only when its act claim names no iss,
// or names the principal's issuer (RFC 8693 §4.1: iss and sub together
// identify an actor), so under Issuers or an issuer template another
// trusted issuer's "orders" is not the local "orders". A malformed act
// claim is refused the same way.
// Actors(0) refuses every token that names an actor. Without this option
// the gate accepts any chain, and a handler reads it with
// [Principal.Actors]. A negative maxDepth, or more lists than maxDepth
// levels, is refused when the gate is built.
func Actors(maxDepth int, allowed ...[]string) Option {
	return func(c *gateConfig) {
		c.actors = &actorPolicy{maxDepth: maxDepth, allowed: allowed}
	}
}

type actorPolicy struct {
	maxDepth int
	allowed  [][]string
}

// problem says what is wrong with the policy as written, or "".
func (a *actorPolicy) problem() string {
	switch {
	case a.maxDepth < 0:
		return "maxDepth must not be negative"
	case len(a.allowed) > a.maxDepth:
		return "has more allowed lists than levels (maxDepth)"
	}
	return ""
}

// admits reports whether p's chain is one the policy accepts.
func (a *actorPolicy) admits(p bearer.Principal) bool {
	chain, err := p.Actors()
	if err != nil || len(chain) > a.maxDepth {
		return false
	}
	for i, actor := range chain {
		if i < len(a.allowed) && len(a.allowed[i]) > 0 && !listed(a.allowed[i], actor, p.Issuer) {
			return false
		}
	}
	return true
}

// listed reports whether actor is one of the subjects of list, which name
// actors of issuer.
func listed(list []string, actor bearer.Actor, issuer string) bool {
	return (actor.Issuer == "" || actor.Issuer == issuer) && slices.Contains(list, actor.Subject)
}

// refuseActor answers a verified caller whose chain the policy refused.
func (q *gateRequest) refuseActor(w http.ResponseWriter) {
	ref := &Refusal{Kind: KindActorRefused}
	q.g.observeRefusal(q.r, refusalRecord{ref: ref, route: q.route(), addr: q.address(), issuer: q.issuer, authz: true})
	q.g.refuse(w, q.r, ref)
}
