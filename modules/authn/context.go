package authn

import (
	"context"

	"github.com/svckit/svc/modules/authn/bearer"
)

// callerKey is the context key of the caller; a private type so no other
// package can read or forge it.
type callerKey struct{}

// caller is what the gate stores: one value, so storing costs one
// allocation whatever is read later.
type caller struct {
	principal bearer.Principal
	token     string
}

// withPrincipal returns a context carrying p and the token it was verified
// from, as the gate stores them. An empty token is a caller that sent none.
func withPrincipal(ctx context.Context, p bearer.Principal, token string) context.Context {
	return context.WithValue(ctx, callerKey{}, &caller{principal: p, token: token})
}

// ContextWithPrincipal returns a copy of ctx carrying p as the gate would
// store it, with no token ([TokenFrom] reports none): [PrincipalFrom],
// [ClaimsFrom] and authnhuma's caller inputs read it. authntest.WithPrincipal
// uses it to put a caller in a handler test's request; an app behind the
// gate never needs it, the gate stores the verified caller.
func ContextWithPrincipal(ctx context.Context, p bearer.Principal) context.Context {
	return withPrincipal(ctx, p, "")
}

// PrincipalFrom returns the verified caller stored by the gate. ok is false
// when no authenticated caller is present: an excluded path, or an anonymous
// route that was sent no token (the returned Principal is then the zero,
// unauthenticated one).
func PrincipalFrom(ctx context.Context) (bearer.Principal, bool) {
	c, _ := ctx.Value(callerKey{}).(*caller)
	if c == nil || !c.principal.Authenticated {
		return bearer.Principal{}, false
	}
	return c.principal, true
}

// ClaimsFrom returns the JWT claims of the verified caller. ok is false when
// there is no authenticated caller or its principal carries no claims (a
// custom principal from a check hook that dropped them).
func ClaimsFrom(ctx context.Context) (*bearer.Claims, bool) {
	p, ok := PrincipalFrom(ctx)
	if !ok || p.Claims == nil {
		return nil, false
	}
	return p.Claims, true
}

// TokenFrom returns the bearer token the caller sent, only once it verified
// (for example to exchange it for a downstream token). ok is false when
// there is no authenticated caller.
func TokenFrom(ctx context.Context) (string, bool) {
	c, _ := ctx.Value(callerKey{}).(*caller)
	if c == nil || !c.principal.Authenticated || c.token == "" {
		return "", false
	}
	return c.token, true
}
