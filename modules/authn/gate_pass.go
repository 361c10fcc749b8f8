package authn

import (
	"context"
	"net/http"

	"github.com/svckit/svc/internal/reqfacts"
	"github.com/svckit/svc/modules/authn/bearer"
)

// What the gate leaves on a request it lets through (itself for the route
// markers, which refuse in its name, and the caller it verified) rides,
// behind the telemetry wrapper (every fxsvc app), in the request's
// reqfacts.State, whose context answers it as a context value: no context
// node and no request copy, as for the components behind the gate.
// Without the wrapper, or with the State's places taken, it goes on a
// context node and a copy of the request.

// pass hands r to next with gc, on a request the gate did not
// authenticate (an excluded path, an anonymous route): it carries no
// caller of this gate, so an enclosing gate's caller stays visible, as it
// does on a context.
func (g *Gate) pass(w http.ResponseWriter, r *http.Request, next http.Handler, st *reqfacts.State, gc *gateCtx) {
	if st != nil && st.Carry(gateKey{}, gc) {
		next.ServeHTTP(w, r)
		return
	}
	next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), gateKey{}, gc)))
}

// admit hands q's request to next with the gate and the caller p, kept in
// q, which the request's verification already allocated.
func (g *Gate) admit(w http.ResponseWriter, next http.Handler, q *gateRequest, p bearer.Principal, token string) {
	q.gc, q.c = gateCtx{g: g, routes: q.routes, issuer: q.issuer, viaDPoP: q.viaDPoP}, caller{principal: p, token: token}
	if q.st != nil && q.st.Carry(gateKey{}, &q.gc) && q.st.Carry(callerKey{}, &q.c) {
		next.ServeHTTP(w, q.r)
		return
	}
	next.ServeHTTP(w, q.r.WithContext(&admittedCtx{Context: q.r.Context(), q: q}))
}

// budgetContext is the context q's token is verified in: the request's,
// carrying q as the caller ([bearer.Caller]): the verification budget's
// fairness key, and whether introspection holds it.
func (q *gateRequest) budgetContext() context.Context {
	if q.st != nil && q.st.Carry(bearer.CallerKey{}, q) {
		return q.r.Context()
	}
	return bearer.ContextWithCaller(q.r.Context(), q)
}

// admittedCtx is the context node of an admitted request outside the
// wrapper: one node answers both the gate and the caller.
type admittedCtx struct {
	context.Context
	q *gateRequest
}

func (x *admittedCtx) Value(key any) any {
	switch key.(type) {
	case gateKey:
		return &x.q.gc
	case callerKey:
		return &x.q.c
	}
	return x.Context.Value(key)
}
