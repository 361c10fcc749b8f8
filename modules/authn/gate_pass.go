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
	q.admitted = true
	next.ServeHTTP(w, q.r.WithContext(q.node()))
}

// budgetContext is the context q's token is verified in: the request's,
// carrying q as the caller ([bearer.Caller]): the verification budget's
// fairness key, and whether introspection holds it.
func (q *gateRequest) budgetContext() context.Context {
	if q.st != nil && q.st.Carry(bearer.CallerKey{}, q) {
		return q.r.Context()
	}
	return q.node()
}

// requestCtx is the context node of a request outside the wrapper, kept in
// q's allocation: one node answers the verifier (the caller, [bearer.Caller])
// and, once the request is admitted, the route markers (the gate) and the
// handler (the caller it verified).
type requestCtx struct {
	context.Context
	q *gateRequest
}

// node is q's context node, made on first use.
func (q *gateRequest) node() context.Context {
	if q.ctx.q == nil {
		q.ctx = requestCtx{Context: q.r.Context(), q: q}
	}
	return &q.ctx
}

func (x *requestCtx) Value(key any) any {
	switch key.(type) {
	case bearer.CallerKey:
		return x.q
	case gateKey:
		if x.q.admitted {
			return &x.q.gc
		}
	case callerKey:
		if x.q.admitted {
			return &x.q.c
		}
	}
	return x.Context.Value(key)
}
