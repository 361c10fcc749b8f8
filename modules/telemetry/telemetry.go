// Package telemetry is a service's outermost HTTP wrapper: every request
// gets a request ID, a server span, a place in the HTTP server metrics and
// a line in the access log, each when turned on. It sits outside the
// authentication gate, so the gate's refusals (401, 403, 429, 503) are
// measured and logged like any answer, and it names each request by the
// route template the gate found (modules/authn), never by its raw path.
//
//	t := telemetry.New(telemetry.AccessLog(logger))
//	handler := t.Handler(gate)
//
// Metrics and spans go to the process-global OpenTelemetry providers, as
// every svc component's do: HTTP metrics while a meter provider is
// installed (fxsvc.Metrics, or otel.SetMeterProvider), spans while a tracer
// provider is (fxsvc.Tracing, or otel.SetTracerProvider); before, the
// wrapper does no work for them. fxsvc.Serve installs it for every app:
// request IDs always, the access log with fxsvc.AccessLog or
// SVC_ACCESS_LOG=true.
package telemetry

import (
	"context"
	"fmt"
	"net/http"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/trace"
	"go.uber.org/zap"

	"github.com/svckit/svc/internal/otelglobal"
	"github.com/svckit/svc/internal/reqfacts"
	"github.com/svckit/svc/internal/reqid"
	"github.com/svckit/svc/modules/requestid"
)

// scope is the instrumentation scope of the wrapper's metrics and spans.
const scope = "github.com/svckit/svc/modules/telemetry"

// accessLogger is the name of the access log's logger.
const accessLogger = "svc.http.access"

// idHeader is X-Request-ID as net/http keys it.
var idHeader = http.CanonicalHeaderKey(requestid.Header)

// Option configures [New].
type Option func(*config)

type config struct {
	log       *zap.Logger
	noIDs     bool
	fallback  reqfacts.Finder
	hasRouter bool
	proxies   []string
}

// AccessLog writes one record per request to l's core under the logger
// name svc.http.access (the logger's own name is not kept, like the
// security records'). A nil l turns the access log off, the default.
func AccessLog(l *zap.Logger) Option {
	return func(c *config) {
		if l == nil {
			c.log = nil
			return
		}
		c.log = zap.New(l.Core()).Named(accessLogger)
	}
}

// RequestIDs(false) leaves X-Request-ID alone: no ID is read, made or
// echoed. Default on.
func RequestIDs(on bool) Option { return func(c *config) { c.noIDs = !on } }

// Router names routes when no authentication gate does: for a chi router
// or a ServeMux (anything with Handler(*http.Request) (http.Handler,
// string)) the wrapper asks it, after the handler ran, which route the
// request was dispatched to. Any other handler gives no route. The gate,
// when present, names the route instead, with no second lookup when it
// already made one.
func Router(h http.Handler) Option {
	return func(c *config) { c.fallback, c.hasRouter = reqfacts.RouterFinder(h), true }
}

// TrustedProxies lists the networks of the app's proxies (CIDRs such as
// "10.0.0.0/8", or single addresses): from one of them, the caller is the
// address X-Forwarded-For names (RFC 7239 Forwarded when no
// X-Forwarded-For came), walked from the right through the proxies. The
// address is worked out once per request, and the access log, the spans,
// the authentication gate (its bans, flood limits and security records)
// and the rate limiter behind it all name the caller by it. Default none:
// the peer is the caller and no forwarding header is believed.
// fxsvc sets it from SVC_HTTP_TRUSTED_PROXIES or fxsvc.TrustedProxies.
func TrustedProxies(cidrs ...string) Option {
	return func(c *config) { c.proxies = append(c.proxies, cidrs...) }
}

// Telemetry is the wrapper. Build it with [New]; it is safe for concurrent
// use.
type Telemetry struct {
	cfg     config
	proxies reqfacts.Proxies
	// bare is set when nothing fixed at New works per request (no IDs,
	// no access log, no trusted proxies): a request then passes straight
	// through unless metrics or tracing have been switched on since.
	bare    bool
	meters  otelglobal.Instruments[httpMetrics]
	tracers atomic.Pointer[tracerSlot]
}

// New builds the wrapper. Every part is optional; it refuses only
// [TrustedProxies] entries that are not CIDRs or addresses, or that trust
// every address.
func New(opts ...Option) (*Telemetry, error) {
	t := &Telemetry{}
	for _, o := range opts {
		if o != nil {
			o(&t.cfg)
		}
	}
	var err error
	if t.proxies, err = reqfacts.ParseProxies(t.cfg.proxies); err != nil {
		return nil, fmt.Errorf("telemetry.TrustedProxies: %w", err)
	}
	t.bare = t.cfg.noIDs && t.cfg.log == nil && len(t.proxies) == 0
	return t, nil
}

// Handler wraps next. With every part off it calls next directly.
func (t *Telemetry) Handler(next http.Handler) http.Handler {
	return &handler{t: t, next: next}
}

// handler is [Telemetry.Handler]'s: a method value rather than a closure
// in an http.HandlerFunc, one call less on every request.
type handler struct {
	t    *Telemetry
	next http.Handler
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.t.serve(w, r, h.next) }

// exchange is one request's state, in one allocation: its context (the
// request ID and what the gate and the components behind it tell) and
// what the response writer saw.
type exchange struct {
	requestContext
	rec recorder
}

// requestContext is the context the wrapper gives a request: one node
// answering the request ID's key, the reqfacts key and the keys of what
// the middlewares inside carried in the State (reqfacts.State.Carry),
// where a context.WithValue for each would allocate a node and a request
// copy.
type requestContext struct {
	context.Context
	// id is the request ID ("" when IDs are off) and, as a slice, the
	// X-Request-ID header's value: one string where two would make the
	// node a size class larger. A handler that writes into that slice,
	// rather than setting the header, changes the ID for what reads it
	// later in the request.
	id [1]string
	st reqfacts.State
}

// begin gives c the request's ID, echoed on w, and the State's facts:
// the trusted proxies and, inside another telemetry wrapper, what its
// State holds for the components behind the gate (the first of them
// records the root path, next to the router, where a mount's rewrite has
// been seen).
func (t *Telemetry) begin(c *requestContext, w http.ResponseWriter, r *http.Request) {
	if !t.cfg.noIDs {
		// By the canonical key: Get and Set would canonicalize
		// "X-Request-ID" into a new string on every request.
		if v := r.Header[idHeader]; len(v) > 0 && reqid.Valid(v[0]) {
			c.id[0] = v[0]
		} else {
			c.id[0] = reqid.New()
		}
		w.Header()[idHeader] = c.id[:]
	}
	c.st.SetProxies(&t.proxies)
	if outer := reqfacts.From(c.Context); outer != nil {
		c.st.Inherit(outer)
	}
}

func (c *requestContext) Value(k any) any {
	if k == (reqid.Key{}) {
		if c.id[0] != "" {
			return &c.id[0]
		}
	} else if v, ok := c.st.Value(k); ok {
		return v
	}
	return c.Context.Value(k)
}

func (t *Telemetry) serve(w http.ResponseWriter, r *http.Request, next http.Handler) {
	m := t.metrics()
	tracer := t.tracer()
	if m == nil && tracer == nil && t.bare {
		next.ServeHTTP(w, r)
		return
	}
	log := t.cfg.log
	if m == nil && tracer == nil && log == nil {
		rc := &requestContext{Context: r.Context()}
		t.begin(rc, w, r)
		next.ServeHTTP(w, r.WithContext(rc))
		return
	}
	t.observe(w, r, next, m, tracer, log)
}

// observe serves a request with metrics, a span or an access line: apart
// from serve, so that a request with only its ID does not carry observe's
// stack frame.
func (t *Telemetry) observe(w http.ResponseWriter, r *http.Request, next http.Handler, m *httpMetrics, tracer trace.Tracer, log *zap.Logger) {
	start := time.Now()
	x := &exchange{requestContext: requestContext{Context: r.Context()}, rec: recorder{ResponseWriter: w}}
	t.begin(&x.requestContext, w, r)
	id := x.id[0]
	if t.cfg.fallback != nil {
		x.st.SetFinder(t.cfg.fallback)
	}
	var ctx context.Context = &x.requestContext
	method := methodName(r.Method)
	var span trace.Span
	if tracer != nil {
		ctx, span = startSpan(ctx, tracer, r, method, id, x.st.ClientAddress(r))
	}
	if m != nil {
		m.enter(ctx, method, r)
	}
	finished := false
	defer func() {
		if !finished {
			// The handler panicked: net/http cuts the connection, the
			// caller sees no answer; count it as the 500 it stands for.
			if x.rec.status == 0 {
				x.rec.status = http.StatusInternalServerError
			}
			t.finish(ctx, r, x, m, span, log, method, id, start)
		}
	}()
	next.ServeHTTP(&x.rec, r.WithContext(ctx))
	finished = true
	t.finish(ctx, r, x, m, span, log, method, id, start)
}

func (t *Telemetry) finish(ctx context.Context, r *http.Request, x *exchange, m *httpMetrics, span trace.Span, log *zap.Logger, method, id string, start time.Time) {
	status := x.rec.statusCode()
	route, found := x.st.Route(r)
	elapsed := time.Since(start)
	if m != nil {
		m.leave(ctx, r, method, route, found, status, elapsed)
	}
	if span != nil {
		endSpan(span, method, route, found, status, x.rec.bytes)
	}
	if log != nil {
		writeAccess(log, r, x, span, method, route, found, status, id, elapsed)
	}
}

// methodName is the request method as telemetry names it: one of the methods
// of RFC 9110 and PATCH, else "_OTHER" (the OpenTelemetry rule), so that a
// caller cannot make up label values.
func methodName(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodDelete,
		http.MethodConnect, http.MethodOptions, http.MethodTrace, http.MethodPatch:
		return m
	}
	return otherMethod
}

// otherMethod is what [Method] calls every method outside its set.
const otherMethod = "_OTHER"

func scheme(r *http.Request) string {
	if r.TLS != nil {
		return "https"
	}
	return "http"
}
