package authn

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
	"go.uber.org/zap"

	"github.com/svckit/svc/internal/otelglobal"
	"github.com/svckit/svc/internal/reqfacts"
	"github.com/svckit/svc/modules/authn/bans"
	"github.com/svckit/svc/modules/authn/bearer"
	"github.com/svckit/svc/modules/authn/flood"
	svcerrors "github.com/svckit/svc/modules/errors"
)

// Gate authenticates every request and websocket handshake that reaches
// it, unless its path is excluded or the route it is dispatched to is
// anonymous. Build one with [New]; put it in front of a router with
// [Gate.Handler] (which reads the router's routes) or use [Middleware] for
// hand-built stacks.
//
// A request without a credential is refused before routing. A request with
// one is verified before routing and then routed; the route's own markers
// ([Require], [Anonymous]) check scopes. Refusals are rendered by the
// registered error format (svcerrors) with the RFC 6750 challenge.
type Gate struct {
	verifier bearer.Verifier
	labeler  func(iss string) string // nil for a verifier of the app's own
	// verifierScans: the verifier refuses every token that is not a
	// b64token itself (scannedToken).
	verifierScans bool
	cfg           gateConfig
	exclude       excludeSet
	meta          *metadata
	bans          *bans.Bans          // nil without authn.Bans
	flood         *flood.Limit        // nil without authn.Flood
	holds         *introspectionHolds // callers whose inactive tokens spent their flood budget; nil without authn.Flood
	log           *zap.Logger
	events        *zap.Logger
	records       *recordLimiter

	meters otelglobal.Instruments[gateMetrics]
	// outcomeOpts caches the attribute set of each (counter, word, route):
	// building one sorts and hashes the attributes on every refusal. Words
	// are a fixed set and routes the router's templates, so it stays small.
	outcomeOpts sync.Map // outcomeKey -> []metric.AddOption
	lastSuccess atomic.Pointer[issuerOpts]
}

type gateKey struct{}

// New builds a gate around a verifier. It refuses a nil verifier, Exclude
// patterns that match everything or end inside a segment, a Resource that
// is not an https URL (or that has no authorization servers to name), a
// CertificateBound proxy header it cannot read.
func New(v bearer.Verifier, opts ...Option) (*Gate, error) {
	if v == nil {
		return nil, errors.New("authn: no verifier: pass bearer.New(issuer, audience) or another bearer.Verifier")
	}
	g := &Gate{verifier: v, cfg: gateConfig{openAPI: true}}
	g.labeler = bearer.IssuerLabeler(v)
	g.verifierScans = bearer.ChecksTokenSyntax(v)
	for _, o := range opts {
		if o != nil {
			o(&g.cfg)
		}
	}
	if g.cfg.certBound != nil && g.cfg.certBound.err != nil {
		return nil, g.cfg.certBound.err
	}
	if g.cfg.actors != nil {
		if problem := g.cfg.actors.problem(); problem != "" {
			return nil, &bearer.ConfigError{Setting: "authn.Actors", Problem: problem}
		}
	}
	if err := g.cfg.acrLevels.problem(); err != nil {
		return nil, err
	}
	if g.cfg.claimsAuthority != nil && g.cfg.claimsAuthority.err != nil {
		return nil, g.cfg.claimsAuthority.err
	}
	var err error
	if g.exclude, err = newExcludeSet(g.cfg.exclude); err != nil {
		return nil, err
	}
	if g.cfg.resource != "" {
		if g.meta, err = newMetadata(g.cfg, v); err != nil {
			return nil, err
		}
	}
	g.bans = g.cfg.bans.Shared(g.cfg.sharedBans)
	g.flood = g.cfg.flood.Shared(g.cfg.sharedFlood)
	if g.flood != nil {
		g.holds = newIntrospectionHolds(time.Now)
	}
	bearer.SetDefaultIntrospectionStore(v, g.cfg.sharedIntrospections)
	g.records = newRecordLimiter(time.Now)
	g.setLogger(zap.L())
	return g, nil
}

// setLogger sets where the gate logs failures of its own (a verifier or
// check hook error that answers 500). Default zap.L(); fxsvc.Authn gives
// the app's.
//
// Security records go to the logger named svc.security.events on the same
// core.
func (g *Gate) setLogger(l *zap.Logger) {
	if l != nil {
		g.log = l
		g.events = zap.New(l.Core()).Named(eventsLogger)
	}
}

// routeFinder tells the gate, before routing, which route a request will be
// dispatched to and how that route is guarded. found is false when no route
// answers the method and path.
type routeFinder interface {
	find(r *http.Request) (pattern string, gd guard, found bool)
	// hasAnonymous reports whether any route is anonymous: only then must a
	// request without a token be routed (and spend the flood limit).
	hasAnonymous() bool
	// FindRoute is find for the telemetry wrapper, after the handler ran.
	reqfacts.Finder
}

func (g *Gate) wrap(next http.Handler, routes routeFinder) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		g.serve(w, r, next, routes)
	})
}

func (g *Gate) serve(w http.ResponseWriter, r *http.Request, next http.Handler, routes routeFinder) {
	st := g.tell(r, routes)
	if g.meta != nil && g.meta.at(r.URL) {
		if st != nil {
			st.SetRoute(g.meta.path, true)
		}
		g.meta.ServeHTTP(w, r)
		return
	}
	if g.exclude.matchRequest(r, routes) {
		// Not authenticated and not recorded; a route there that requires a
		// caller still refuses in the gate's name (its challenge).
		g.pass(w, r, next, st, &gateCtx{g: g, excluded: true})
		return
	}
	q := gateRequest{g: g, r: r, routes: routes, st: st}
	if g.bans != nil {
		if wait, banned := g.bans.Banned(q.address()); banned {
			// Counted, not written: a banned forger must not fill the log.
			// The span still says it was refused.
			g.countRefused(r.Context(), string(KindClientBanned), q.route(), "", "")
			if span := trace.SpanFromContext(r.Context()); span.IsRecording() {
				span.SetAttributes(attribute.String("svc.authentication.refusal", string(KindClientBanned)))
			}
			g.refuse(w, r, &Refusal{Kind: KindClientBanned, RetryAfter: wait})
			return
		}
	}
	token, viaDPoP, refusal := g.credential(r)
	q.viaDPoP = viaDPoP
	if refusal != nil {
		q.refuse(w, refusal, false)
		return
	}
	if token == "" {
		if routes != nil && g.routedWithoutToken(&q) {
			g.pass(w, r, next, st, &gateCtx{g: g, routes: routes})
			return
		}
		if routes != nil && g.flood != nil && routes.hasAnonymous() && !q.floodAllows(w) {
			return
		}
		q.refuse(w, &Refusal{Kind: KindAuthenticationRequired}, len(r.Header["Authorization"]) == 0)
		return
	}
	if !g.scannedToken(token, false) {
		q.refuse(w, malformedCredential(), false)
		return
	}
	p, err := g.verifier.Verify(q.budgetContext(), token)
	if err != nil {
		if !g.scannedToken(token, true) {
			q.refuse(w, malformedCredential(), false)
			return
		}
		g.verifyFailed(w, &q, err)
		return
	}
	// The issuer that verified the token, before the check hook may
	// change the principal.
	q.issuer = g.issuerLabel(p.Issuer)
	if !p.Authenticated {
		g.internalError(w, r, fmt.Errorf("authn: verifier %T returned a principal that is not Authenticated with a nil error", g.verifier))
		return
	}
	bound := p.Binding()
	if ref := g.cfg.uncheckedBinding(p, bound); ref != nil {
		q.refuse(w, ref, false)
		return
	}
	if g.cfg.dpop != nil {
		ref, err := g.cfg.dpop.admit(w, r, bound.Key, token, viaDPoP)
		if err != nil {
			g.dpopUnavailable(w, r, err)
			return
		}
		if ref != nil {
			q.refuse(w, ref, false)
			return
		}
	}
	if g.cfg.certBound != nil {
		if ref := g.cfg.certBound.admit(r, bound); ref != nil {
			q.refuse(w, ref, false)
			return
		}
	}
	if g.cfg.check != nil {
		var ok bool
		if p, ok = g.runCheck(w, &q, p); !ok {
			return
		}
	}
	g.countSuccess(r.Context(), q.issuer)
	if g.cfg.endUser {
		setEndUser(r.Context(), p.Subject)
	}
	if g.cfg.actors != nil && !g.cfg.actors.admits(p) {
		q.refuseActor(w)
		return
	}
	if g.flood != nil && routes != nil {
		if _, _, found := routes.find(r); !found && !q.floodAllows(w) {
			return
		}
	}
	g.admit(w, next, &q, p, token)
}

// gateRequest is one request on its way through the gate.
type gateRequest struct {
	g       *Gate
	r       *http.Request
	routes  routeFinder
	st      *reqfacts.State // nil without the telemetry wrapper
	viaDPoP bool            // the token came with the DPoP scheme
	issuer  string          // the label of the issuer that verified the token, once known
	pattern string
	found   bool
	looked  bool

	// What an admitted request carries, in q's allocation ([Gate.admit]),
	// and the context node that carries it without the wrapper.
	gc       gateCtx
	c        caller
	ctx      requestCtx
	admitted bool
}

// address is the caller's address, worked out on first use (an admitted
// request without bans never needs it) by the one rule every part of the
// request shares.
func (q *gateRequest) address() string { return reqfacts.ClientAddress(q.r) }

// FairnessKey queues a verification that waits for the verifier's budget
// under the caller's address, so one address cannot hold everyone's turn.
func (q *gateRequest) FairnessKey() string { return q.address() }

// route is the template of the route the request is dispatched to, found
// before routing so that a refusal names it; "" when no route answers.
func (q *gateRequest) route() string {
	if !q.looked && q.routes != nil {
		q.pattern, _, q.found = q.routes.find(q.r)
		q.looked = true
		if q.st != nil {
			q.st.SetRoute(q.pattern, q.found)
		}
	}
	return q.pattern
}

// refuse writes, counts and answers a refusal of the gate itself.
func (q *gateRequest) refuse(w http.ResponseWriter, ref *Refusal, noCreds bool) {
	ref = q.scoped(ref)
	if q.viaDPoP {
		ref = q.g.cfg.dpop.underDPoP(ref)
	}
	q.g.observeRefusal(q.r, refusalRecord{ref: ref, route: q.route(), addr: q.address(), noCreds: noCreds, issuer: q.issuer})
	q.g.refuse(w, q.r, ref)
}

func (q *gateRequest) floodAllows(w http.ResponseWriter) bool {
	wait, ok := q.g.flood.Allow(q.address())
	if !ok {
		svcerrors.Refuse(w, q.r, &svcerrors.RateLimitExceeded{RetryAfter: wait})
	}
	return ok
}

// observeRefusal records a refusal: the attempts metric (or, for a missing
// scope, the authorization metric) always; a security record once per kind
// per address per minute; the span annotation.
func (g *Gate) observeRefusal(r *http.Request, rec refusalRecord) {
	if rec.authz {
		g.countAuthz(r.Context(), rec.ref.word(), rec.route, rec.issuer)
	} else {
		g.countRefused(r.Context(), rec.ref.word(), rec.route, rec.issuer, rec.ref.proofReason())
	}
	if write, suppressed := g.records.allow(rec.ref.word(), rec.addr); write {
		g.writeRecord(r, rec, suppressed)
	} else if span := trace.SpanFromContext(r.Context()); span.IsRecording() {
		span.SetAttributes(attribute.String("svc.authentication.refusal", rec.ref.word()))
	}
}

// routedWithoutToken reports whether a request without a token may be
// routed: its route is anonymous, or it is a CORS preflight that no
// protected OPTIONS route would serve (so that the app's own CORS middleware
// can answer it).
func (g *Gate) routedWithoutToken(q *gateRequest) bool {
	r := q.r
	pattern, gd, found := q.routes.find(r)
	q.pattern, q.found, q.looked = pattern, found, true
	if q.st != nil {
		q.st.SetRoute(pattern, found)
	}
	if found {
		return gd.anonymous
	}
	asked := r.Header.Get("Access-Control-Request-Method")
	if r.Method != http.MethodOptions || r.Header.Get("Origin") == "" || asked == "" {
		return false
	}
	// A CORS preflight goes on to the app's CORS middleware only for a
	// URL a route serves with the method it asks about: for any other, the
	// app's own not-found handler (an SPA's file server) would answer it
	// without a token.
	probe := r.WithContext(r.Context())
	probe.Method = asked
	_, _, found = q.routes.find(probe)
	return found
}

// keysUnavailableCause keys the rate limit of the 503's cause line; no
// refusal word has this name.
const keysUnavailableCause = "keys-unavailable-cause"

// introspectionRetryAfter is the Retry-After of a failed introspection.
const introspectionRetryAfter = 5 * time.Second

// introspectionUnavailableCause keys the rate limit of the introspection
// 503's cause line.
const introspectionUnavailableCause = "introspection-unavailable-cause"

func (g *Gate) verifyFailed(w http.ResponseWriter, q *gateRequest, err error) {
	var te *bearer.TokenError
	var held *bearer.HeldError
	switch {
	case errors.As(err, &te):
		if te.Signed {
			// Refused for its claims: the signature names the issuer (a
			// forged token names nobody).
			q.issuer = g.issuerLabel(te.Principal.Issuer)
			if g.cfg.endUser {
				setEndUser(q.r.Context(), te.Principal.Subject)
			}
		}
		g.judged(q, te)
		ref := tokenRefusal(te)
		g.logAudience(ref, q.issuer)
		q.refuse(w, ref, false)
	case errors.As(err, &held):
		// Not judged: no introspection request was sent (gate_introspect.go).
		svcerrors.Refuse(w, q.r, &svcerrors.RateLimitExceeded{RetryAfter: held.Wait})
	case errors.Is(err, bearer.ErrKeysUnavailable):
		// The security record says a 503 was answered; this line says why
		// (not opened, or the last fetch's failure, its URLs redacted by
		// the verifier), once a minute.
		if write, suppressed := g.records.allow(keysUnavailableCause, ""); write {
			g.log.Warn("authn: answering 503, signing keys unavailable",
				zap.String("error", err.Error()), zap.Int("suppressed", suppressed))
		}
		q.refuse(w, &Refusal{Kind: KindKeysUnavailable}, false)
	case errors.Is(err, bearer.ErrIntrospectionUnavailable):
		// Fail closed; the cause (the endpoint, the status or network
		// error, never the token) is logged once a minute.
		if write, suppressed := g.records.allow(introspectionUnavailableCause, ""); write {
			g.log.Warn("authn: answering 503, token introspection unavailable",
				zap.String("error", err.Error()), zap.Int("suppressed", suppressed))
		}
		q.refuse(w, &Refusal{Kind: KindIntrospectionUnavailable, RetryAfter: introspectionRetryAfter}, false)
	case errors.Is(err, bearer.ErrBusy):
		// Not a judgement of the token: bans never count it.
		q.refuse(w, &Refusal{Kind: KindVerifierBusy, RetryAfter: busyRetryAfter}, false)
	default:
		g.internalError(w, q.r, err)
	}
}

// refuse answers r with a refusal in the registered error format. Its
// Bearer challenge names the metadata URL; ref is left as it is, for it
// may be the caller's own and shared by concurrent requests
// ([RefuseRoute]), so a refusal without the URL is answered as a copy.
func (g *Gate) refuse(w http.ResponseWriter, r *http.Request, ref *Refusal) {
	if g.meta != nil && ref.resourceMetadata != g.meta.url {
		ref = ref.naming(g.meta.url)
	}
	if a := g.cfg.claimsAuthority; a != nil && ref.Kind == kindInsufficientClaims && ref.authority != a {
		own := *ref
		own.authority = a
		ref = &own
	}
	if g.cfg.dpop != nil {
		ref = g.cfg.dpop.challenged(ref)
	}
	svcerrors.Refuse(w, r, ref)
}

// internalError answers 500: the verifier or the hook failed, not the caller.
func (g *Gate) internalError(w http.ResponseWriter, r *http.Request, err error) {
	g.log.Error("authn: request could not be authenticated", zap.String("url.path", r.URL.Path),
		requestIDField(r), zap.Error(err))
	svcerrors.Refuse(w, r, internalFailure{})
}

// internalFailure is the gate's answer when it could not judge a request:
// a 500 that says nothing of the cause (logged instead).
type internalFailure struct{}

func (internalFailure) Error() string { return "authn: the request could not be authenticated" }

// Describe implements svcerrors.Rejection.
func (internalFailure) Describe() svcerrors.Description {
	return svcerrors.Description{Kind: svcerrors.Kind{
		Status: http.StatusInternalServerError, Title: http.StatusText(http.StatusInternalServerError),
		Detail: "The server could not complete the request.",
	}}
}

// gateCtx is what the gate leaves in the request context for the route
// markers: themselves part of the gate, they refuse in its name.
type gateCtx struct {
	g        *Gate
	routes   routeFinder
	excluded bool
	issuer   string // the label of the issuer that verified the caller
	viaDPoP  bool   // the caller's token came with the DPoP scheme and a verified proof
}

func gateFrom(ctx context.Context) *gateCtx {
	c, _ := ctx.Value(gateKey{}).(*gateCtx)
	return c
}
