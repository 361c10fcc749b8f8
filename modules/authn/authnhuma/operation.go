package authnhuma

import (
	"maps"
	"net/http"
	"slices"

	"github.com/danielgtaylor/huma/v2"

	"github.com/svckit/svc/modules/authn"
	svcerrors "github.com/svckit/svc/modules/errors"
)

// metaKey holds an operation's guard in huma.Operation.Metadata.
const metaKey = "svc.authn"

// enforcedKey marks an operation whose Huma middleware checks its guard.
const enforcedKey = "svc.authn.enforced"

// opGuard is how an operation is protected. It is replaced, never changed
// in place: Huma groups copy an operation's Metadata map, and the copies
// must not share a guard that a later modifier changes.
type opGuard struct {
	anonymous bool
	requires  bool
	scopes    []string
	stepUps   []func(http.Handler) http.Handler // authn.RequireACR, authn.MaxAge, authn.RequireDPoP, authn.RequireRole (see Use)
	dpop      bool                              // authn.RequireDPoP is among stepUps
	rejects   []svcerrors.Rejection
	docs      []markerDoc                       // see markerDocs
	notes     []func(http.Handler) http.Handler // see Notes
	noted     []*noteMark                       // the Notes calls applied
}

// noteMark is one Notes call; its address tells the calls apart.
type noteMark struct{ _ byte }

func guardOf(op *huma.Operation) opGuard {
	if op == nil {
		return opGuard{}
	}
	gd, _ := op.Metadata[metaKey].(opGuard)
	return gd
}

func update(op *huma.Operation, change func(gd *opGuard), enforce bool) {
	gd := guardOf(op)
	gd.scopes = slices.Clone(gd.scopes)
	gd.stepUps = slices.Clone(gd.stepUps)
	gd.rejects = slices.Clone(gd.rejects)
	gd.docs = slices.Clone(gd.docs)
	gd.notes = slices.Clone(gd.notes)
	gd.noted = slices.Clone(gd.noted)
	change(&gd)
	// A copy of the map, not the map: a Huma group runs its modifiers
	// twice, for the document and for the router, each time on a shallow
	// copy of the operation that shares the registered operation's map.
	// Written in place, the first run would leave its guard in the map the
	// second starts from (a marker noted twice, enforceGuard seen as
	// added and left off the operation the router runs).
	op.Metadata = maps.Clone(op.Metadata)
	if op.Metadata == nil {
		op.Metadata = map[string]any{}
	}
	op.Metadata[metaKey] = gd
	if enforce && op.Metadata[enforcedKey] != true {
		op.Metadata[enforcedKey] = true
		op.Middlewares = append(op.Middlewares, enforceGuard)
	}
}

// Anonymous makes the credential optional on an operation:
//
//	huma.Get(api, "/hello", hello, authnhuma.Anonymous)
//
// A request without a token is served as a caller that is not
// authenticated (read it with [OptionalCaller]); a token that is sent is
// still verified, and a bad one gets 401. It applies to that operation
// alone, per method. On a group (grp.UseSimpleModifier(authnhuma.Anonymous))
// it makes the operations registered through that group public, under that
// group alone. An operation that is both Anonymous and [Require]d is
// refused when the gate is installed.
func Anonymous(op *huma.Operation) {
	update(op, func(gd *opGuard) { gd.anonymous = true }, true)
}

// Require makes an operation need an authenticated caller holding every
// named scope; a caller lacking one gets 403 insufficient-scope, never 401.
//
//	huma.Delete(api, "/items/{id}", del, authnhuma.Require("items:write"))
//
// On a group (grp.UseSimpleModifier(authnhuma.Require("admin"))) it applies
// to every operation registered through the group; a group's scopes and
// its operation's own are all required. The check runs before Huma reads
// the request body. On a bare humachi or humago adapter a group's Require
// is documentation only: Huma v2.37 does not run the middlewares a group's
// modifier adds (huma#804), and enforceGuard is one; the route markers of
// [NewChi] and [NewGo] enforce it. (On a bare adapter an operation
// carrying the markers of authnhuma.Use or authnhuma.Group is the
// exception: they check it with [Admit] before they run.)
func Require(scopes ...string) func(*huma.Operation) {
	scopes = slices.Clone(scopes)
	return func(op *huma.Operation) {
		update(op, func(gd *opGuard) {
			gd.requires = true
			for _, s := range scopes {
				if s != "" && !slices.Contains(gd.scopes, s) {
					gd.scopes = append(gd.scopes, s)
				}
			}
			// A group's modifiers run after the operation's own options:
			// sorted, the challenge does not depend on that order.
			slices.Sort(gd.scopes)
		}, true)
	}
}

// Rejects declares, in the API document, the rejections an operation's
// handler returns (for example a *svcerrors.RateLimitExceeded from its own
// rate limit): each is listed under its status with the registered error
// model, unless the operation declares that status itself.
func Rejects(rejections ...svcerrors.Rejection) func(*huma.Operation) {
	rejections = slices.Clone(rejections)
	return func(op *huma.Operation) {
		update(op, func(gd *opGuard) {
			for _, r := range rejections {
				if r != nil {
					gd.rejects = append(gd.rejects, r)
				}
			}
		}, false)
	}
}

// notes declares, for `check`, net/http route markers that run inside the
// operation rather than on its route: [Use] puts the markers of
// the components behind the gate (rate limits, idempotency, conditional
// requests, caching) among Huma's middlewares, where the router's walk
// cannot see them. The adapters of [NewChi] and [NewGo] register the
// operation's handler in a handler that `check` reads them through and
// that serves a request exactly as the handler alone: the markers are
// applied once, at registration, to be read, and never serve a request
// from there. In `check` they print the notes they print on a chi route.
// notes does not run the markers ([Use] and [Group] do). One notes value notes its markers
// once on an operation however often it is applied (a group without a
// prefix applies its modifiers twice to the operation itself). On an API
// built on a bare humachi or humago adapter it changes nothing.
func notes(markers ...func(http.Handler) http.Handler) func(*huma.Operation) {
	markers = slices.DeleteFunc(slices.Clone(markers), func(m func(http.Handler) http.Handler) bool { return m == nil })
	mark := &noteMark{}
	return func(op *huma.Operation) {
		// A group without a prefix runs its modifiers twice on the
		// operation itself: noted once.
		if len(markers) == 0 || slices.Contains(guardOf(op).noted, mark) {
			return
		}
		update(op, func(gd *opGuard) {
			gd.notes = append(gd.notes, markers...)
			gd.noted = append(gd.noted, mark)
		}, false)
	}
}

// markers are the authn route markers an operation's handler is wrapped
// in, so that the gate reads the operation's guard before routing (and
// `check` lists it) like any chi or ServeMux route.
func markers(op *huma.Operation) []func(http.Handler) http.Handler {
	gd := guardOf(op)
	var mws []func(http.Handler) http.Handler
	if gd.anonymous {
		mws = append(mws, authn.Anonymous)
	}
	if gd.requires {
		mws = append(mws, authn.Require(gd.scopes...))
	}
	return append(mws, gd.stepUps...)
}

// enforceGuard checks an operation's guard inside Huma, before the body is
// read. Behind this package's adapters the route markers have already
// checked it; on an API built on a bare adapter it is what keeps Require
// from being documentation only.
func enforceGuard(ctx huma.Context, next func(huma.Context)) {
	if Admit(ctx) {
		next(ctx)
	}
}

// Admit enforces the guard of ctx's operation (its [Require] scopes, the
// group's included, and the step-up markers given to [Use] or [Group]) where a Huma middleware stands: it reports whether the
// caller may go on, and when not it has already written the refusal the
// guard's own middleware would (401 authentication-required without a
// verified caller, 403 insufficient-scope with the gate's challenge). An
// operation without Require admits every request.
//
// It is for middlewares that must not act for a caller the operation
// refuses: Huma runs a group's middlewares, and an operation's in the
// order its options were given, so on a bare humachi or humago adapter
// such a middleware may run before the guard's (the bridges of [Use] call
// Admit so that a rate limit spends nothing on a caller refused 403).
// Behind [NewChi] and [NewGo] the route markers refused such a caller
// before Huma ran, and Admit is true. It allocates nothing when it admits
// an operation without a step-up.
func Admit(ctx huma.Context) bool {
	gd := guardOf(ctx.Operation())
	if !gd.requires {
		return true
	}
	p, ok := authn.PrincipalFrom(ctx.Context())
	switch {
	case ok && len(gd.stepUps) > 0:
		return admitStepUp(ctx, gd)
	case !ok:
		refuse(ctx, &authn.Refusal{Kind: authn.KindAuthenticationRequired})
	case !p.Scopes.Has(gd.scopes...):
		refuse(ctx, &authn.Refusal{Kind: authn.KindInsufficientScope, Scopes: gd.scopes})
	default:
		return true
	}
	return false
}

// refuse answers a refusal the way a route marker does (recorded, with the
// gate's challenge), through the adapter's own request and writer.
func refuse(ctx huma.Context, ref *authn.Refusal) {
	r, w := unwrap(ctx)
	authn.RefuseRoute(w, r, ref)
}
