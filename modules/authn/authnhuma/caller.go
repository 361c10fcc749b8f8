package authnhuma

import (
	"github.com/danielgtaylor/huma/v2"

	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/bearer"
)

// Caller is the verified caller, as a typed input field of an operation:
//
//	type MeInput struct {
//		Caller authnhuma.Caller
//	}
//	func me(ctx context.Context, in *MeInput) (*MeOutput, error) {
//		sub := in.Caller.Subject // in.Caller.Claims, in.Caller.Scopes…
//	}
//
// It requires one: on an operation reached without a verified caller (an
// Anonymous operation sent no token, an excluded path) the request is
// refused with 401 authentication-required before the handler runs. Use
// [OptionalCaller] on Anonymous operations. authn.PrincipalFrom(ctx) reads
// the same caller from the handler's context.
type Caller struct{ bearer.Principal }

// Resolve implements huma.Resolver.
func (c *Caller) Resolve(ctx huma.Context) []error {
	p, ok := authn.PrincipalFrom(ctx.Context())
	if !ok {
		return noCaller(ctx)
	}
	c.Principal = p
	return nil
}

// OptionalCaller is the caller if any, as a typed input field: on an
// Anonymous operation sent no token its Authenticated is false and the
// rest is zero.
type OptionalCaller struct{ bearer.Principal }

// Resolve implements huma.Resolver.
func (c *OptionalCaller) Resolve(ctx huma.Context) []error {
	c.Principal, _ = authn.PrincipalFrom(ctx.Context())
	return nil
}

// refusalError is a refusal Huma reads the status of.
type refusalError struct{ *authn.Refusal }

func (e refusalError) GetStatus() int { return e.Describe().Status }
func (e refusalError) Unwrap() error  { return e.Refusal }

// noCaller is the 401 of an operation reached without a verified caller,
// written as the gate that admitted the request would (its challenge
// names the protected-resource metadata).
func noCaller(ctx huma.Context) []error {
	ref := authn.WithGateChallenge(ctx.Context(), &authn.Refusal{Kind: authn.KindAuthenticationRequired})
	return []error{refusalError{ref}}
}
