package authnhuma

import (
	"maps"
	"net/http"
	"runtime"
	"slices"
	"strings"

	"github.com/danielgtaylor/huma/v2"
)

// Group runs the given net/http markers around every operation registered
// through grp after the call, in order (the first is outermost), declares
// their refusals on each operation in the API document and their notes for
// `check`:
//
//	orders := huma.NewGroup(api, "/orders")
//	orders.UseSimpleModifier(Require("orders"))
//	authnhuma.Group(orders, ratelimit.Limit("10/s", 20))
//	huma.Get(orders, "/{id}", show)            // one budget per caller,
//	huma.Post(orders, "/{id}/cancel", cancel) // shared by the group
//
// A marker is one value for the whole group: a rate limit's budget is
// shared, per caller, by the group's operations, as on a chi group. The
// step-up markers authn.RequireACR and authn.MaxAge join each operation's
// guard, as with [Use].
//
// The markers run as the group's Huma middlewares (grp.UseMiddleware),
// which Huma runs, and never as middlewares a group's modifier adds, which
// Huma v2.37 does not run (huma#804): the modifier Group adds only
// describes them, so that a Huma that fixes huma#804 runs nothing twice.
// Huma v2.37 runs them before the markers an operation of the group gets
// from [Use] (that order is Huma's). Like those, they run only for a
// caller the operation's guard admits (its Require and its
// groups'): on the adapters of NewChi and NewGo the route
// markers refuse such a caller before Huma runs; on bare humachi and
// humago adapters, where a group's middlewares run before an operation's
// own, each marker first lets the guard refuse (Admit).
// Operations registered through grp before the call have none of it, as
// with grp.UseMiddleware. Group panics on a nil group.
func Group(grp *huma.Group, markers ...func(http.Handler) http.Handler) {
	if grp == nil {
		panic("authnhuma.Group: nil *huma.Group")
	}
	steps, markers := splitStepUps(present(markers))
	if len(markers)+len(steps) == 0 {
		return
	}
	mws := make([]func(huma.Context, func(huma.Context)), 0, len(markers)+1)
	if len(steps) > 0 {
		// Enforces the step-up the modifier below puts in each operation's
		// guard where no route marker does (bare adapters).
		mws = append(mws, enforceGuard)
	}
	for _, m := range markers {
		mws = append(mws, bridge(m))
	}
	grp.UseMiddleware(mws...)

	describe := markerDocs(markers)
	mark := &groupMark{}
	grp.UseSimpleModifier(func(op *huma.Operation) {
		// Huma runs a group's modifiers twice, for the document and for the
		// router: on copies of the operation behind a prefix, on the
		// operation itself without one. Described once either way.
		done, _ := op.Metadata[groupsKey].([]*groupMark)
		if slices.Contains(done, mark) {
			return
		}
		addStepUps(op, steps)
		describe(op)
		op.Metadata = maps.Clone(op.Metadata)
		if op.Metadata == nil {
			op.Metadata = map[string]any{}
		}
		op.Metadata[groupsKey] = append(slices.Clip(done), mark)
	})
}

// groupsKey lists, in huma.Operation.Metadata, the Group calls that have
// described the operation.
const groupsKey = "svc.behind.groups"

// groupMark is one Group call; its address tells the calls apart.
type groupMark struct{ _ byte }

// humaGroup is the prefix of the functions of Huma's group code: a
// modifier it calls runs on a copy of an operation whose middlewares are
// never run (huma#804).
const humaGroup = "github.com/danielgtaylor/huma/v2.(*Group)."

// inGroupModifier reports whether the caller runs as a huma.Group's
// modifier. Registration-time only: it reads the call stack.
func inGroupModifier() bool {
	pcs := make([]uintptr, 64)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(3, pcs)])
	for {
		f, more := frames.Next()
		if strings.HasPrefix(f.Function, humaGroup) {
			return true
		}
		if !more {
			return false
		}
	}
}
