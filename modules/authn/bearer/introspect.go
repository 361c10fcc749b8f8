package bearer

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sync/atomic"
	"time"

	"github.com/svckit/svc/internal/urlshape"
	"github.com/svckit/svc/modules/authn/internal/b64token"
	"github.com/svckit/svc/modules/oauthclient"
)

// Defaults of introspection, as Introspect documents them.
const (
	// defaultIntrospectionTTL is the longest an active answer is reused:
	// the delay before a revocation at the issuer reaches this service.
	defaultIntrospectionTTL = 2 * time.Minute
	// inactiveTTL is how long an inactive answer (or a refusal of the
	// claims an active one carried) is reused: long enough that a client
	// retrying a dead token in a loop costs one request per interval,
	// short enough that a token activated meanwhile is not held off long.
	inactiveTTL = 10 * time.Second
)

// ErrIntrospectionUnavailable is returned by Verify when an opaque token
// could not be introspected: the endpoint was unreachable, slow, answered
// another status than 200, or an answer that is not an RFC 7662 document
// (or an RFC 9701 one whose signature, issuer or audience does not
// verify), or the client could not authenticate. The gate answers 503
// introspection-unavailable with Retry-After (the token is not judged:
// fail closed, and bans never count it). Test with errors.Is; the error
// names the cause, never the token or a credential.
var ErrIntrospectionUnavailable = errors.New("authn: token introspection unavailable")

// introspectSettings are the settings Introspect gave.
type introspectSettings struct {
	endpoint string
	client   *oauthclient.Client
}

// Introspect makes the verifier accept opaque access tokens too, by RFC
// 7662 introspection at endpoint, so one issuer's JWTs and opaque tokens
// pass the same gate. A token that is not a JWS (three base64url segments
// whose first decodes to a JSON object; five for a JWE, which stays
// refused) goes to the endpoint; a JWS is verified with keys as before.
// With an empty endpoint, Discover takes `introspection_endpoint` from the
// discovery document; JWKSURL and KeySet then refuse it. A document with
// none (Ory Hydra names none: it serves introspection on its admin port
// only), or with one that is not https, fails the discovery as a missing
// jwks_uri does: no keys load, Ready names introspection_endpoint and the
// discovery URL, and every token is answered 503 until the document names
// one or the endpoint is given here.
//
// client authenticates the requests as it does its own token requests
// (client_secret_basic, client_secret_post or private_key_jwt; a client
// with TLSClientAuth is refused, the certificate belonging on a connection
// of its own). The app owns it: the verifier neither
// opens nor closes it.
//
// An active answer is checked as a JWT's claims are: `iss` exact, `aud`
// containing the audience, `exp` required, `exp`, `nbf` and `iat` with
// leeway, `scope` read as Principal.Scopes, and `token_type`, when sent,
// must be Bearer, or DPoP with the key the token is bound to (`cnf.jkt`,
// RFC 9449 §6.2; a gate without [DPoP] refuses such a token). Every
// member, `cnf` included, is kept in Principal.Claims.Raw, so that the
// gate's [DPoP] and [CertificateBound] bind an opaque token by its
// `cnf.jkt` and `cnf.x5t#S256` as they bind a JWT. `active: false` is
// refused with ReasonInactive; under the gate, one that a caller's own
// request fetched from the endpoint counts toward its ban (Bans) and
// spends its flood budget (Flood), and a caller whose budget is spent gets
// no new introspection request until it refills (429
// rate-limit-exceeded). A verifier without Introspect refuses an opaque
// token as ReasonMalformed, the gate's detail saying it introspects none.
// The request asks for a signed answer (RFC 9701,
// application/token-introspection+jwt) and accepts plain JSON; a signed
// answer must verify with the issuer's keys, name the issuer as `iss` and
// the client's ID in `aud`.
//
// Answers are cached under the SHA-256 of the token (the token itself is
// never stored, logged or counted): an active one until its exp plus
// leeway, at most IntrospectionTTL (default 2 minutes, the longest a
// revocation takes to reach the service); an inactive one, or one whose
// claims are refused, for 10 seconds. CacheBytes bounds the cache, as it
// bounds the JWT one. However many requests wait for one token, one
// introspection request is sent (single flight); each request waits no
// longer than its context, the introspection no longer than FetchTimeout,
// and one every waiting request has left is cancelled. Each introspection
// request holds a slot of the verification budget while it is sent
// (MaxConcurrentVerifications, shared with signature checks, turns queued
// by client address), so distinct opaque tokens cannot send more requests
// at once to the endpoint; one whose turn does not come within
// VerificationWait, or whose callers all leave first, fails with ErrBusy
// (503 bulkhead-full), as a JWT's verification does.
// A failure is not cached: Verify returns an error wrapping
// ErrIntrospectionUnavailable (503 with Retry-After). Redirects are not
// followed, so credentials go nowhere but endpoint. Every introspection
// request is counted in svc.authn.introspections, by svc.outcome (active,
// inactive, refused, failed).
//
// endpoint, when given, must be https (http on a loopback host) with no
// user information, query or fragment, and client must not be nil;
// otherwise Open and every Verify return a *ConfigError.
func Introspect(endpoint string, client *oauthclient.Client) VerifierOption {
	return func(c *verifierConfig) {
		if client == nil {
			c.refuse("Introspect", "was given a nil client; pass the oauthclient.Client the service authenticates to the issuer with")
			return
		}
		if endpoint != "" {
			if err := checkIntrospectionURL(endpoint); err != nil {
				c.refuse("Introspect", "endpoint "+err.Error())
				return
			}
		}
		c.introspect = &introspectSettings{endpoint: endpoint, client: client}
	}
}

// IntrospectionTTL sets the longest an active introspection answer is
// reused (default 2 minutes): how long a token revoked at the issuer may
// still pass. It must be positive and at most one hour; it matters only
// with Introspect.
func IntrospectionTTL(d time.Duration) VerifierOption {
	return func(c *verifierConfig) {
		if d <= 0 || d > time.Hour {
			c.refuse("IntrospectionTTL", "must be between 0 (excluded) and 1h")
			return
		}
		c.introspectionTTL = d
	}
}

// checkIntrospectionURL refuses an endpoint that could not be asked
// safely: what checkFetchURL refuses, and a query, which may carry a
// credential into logs.
func checkIntrospectionURL(raw string) error {
	if err := urlshape.Fetchable(raw); err != nil {
		return err
	}
	if u, _ := url.Parse(raw); u.RawQuery != "" || u.ForceQuery {
		return errors.New("has a query")
	}
	return nil
}

// introspector is the introspection half of a JWTVerifier.
type introspector struct {
	v        *JWTVerifier
	endpoint string // the configured one; "" means the discovered one
	client   *oauthclient.Client
	http     *http.Client
	ttl      time.Duration
	cache    *introspectCache
	flights  flights
	metrics  introspectMetrics
	// shared is the store the service's replicas share answers in, nil
	// for none ([Store], or the app's through the gate).
	shared atomic.Pointer[sharedAnswers]
	// base is the context every introspection runs under: a flight
	// outlives the caller that started it while others wait for the same
	// answer, ends when the last of them leaves, and with the verifier's
	// Close.
	base   context.Context
	cancel context.CancelFunc
}

// newIntrospector builds v's introspector from its settings; nil when
// Introspect was not given. It runs in finish, so a refusal joins v.err.
func newIntrospector(v *JWTVerifier) *introspector {
	s := v.cfg.introspect
	if s == nil {
		return nil
	}
	if v.cfg.tenants != nil {
		// An opaque token names no tenant, so no tenant's endpoint
		// could be chosen for it.
		v.cfg.refuse("Introspect", "cannot go with an issuer template (bearer.Tenants, bearer.AnyTenant): an opaque token names no tenant; give Introspect to one tenant's own verifier")
		return nil
	}
	if s.endpoint == "" && !v.cfg.discovers {
		v.cfg.refuse("Introspect", "has no endpoint and the verifier does not discover one; pass the introspection endpoint, or build the verifier with bearer.Discover")
	}
	hc := *v.client
	// A redirected request would carry the token and the client's
	// credentials elsewhere; the redirect is answered as a failure.
	hc.CheckRedirect = answerRedirectAsFailure
	in := &introspector{
		v:        v,
		endpoint: s.endpoint,
		client:   s.client,
		http:     &hc,
		ttl:      v.cfg.introspectionTTL,
		cache:    newIntrospectCache(v.cfg.cacheBytes),
	}
	if in.ttl == 0 {
		in.ttl = defaultIntrospectionTTL
	}
	if v.cfg.introspectionStore != nil {
		in.shared.Store(&sharedAnswers{in: in, store: v.cfg.introspectionStore})
	}
	in.base, in.cancel = context.WithCancel(context.Background())
	return in
}

// answerRedirectAsFailure is the introspection client's CheckRedirect: the
// redirect response itself is returned, and read as a failed request.
func answerRedirectAsFailure(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// introspectionEndpoint returns where opaque tokens are introspected: the
// endpoint given to Introspect, or the discovered one once discovery ran;
// "" for a verifier without Introspect or before discovery. The start
// line names it ([IntrospectionEndpoint]).
func (v *JWTVerifier) introspectionEndpoint() string {
	if v.intro == nil {
		return ""
	}
	return v.intro.target()
}

func (in *introspector) target() string {
	if in.endpoint != "" {
		return in.endpoint
	}
	if d := in.v.discovery; d != nil {
		d.mu.Lock()
		defer d.mu.Unlock()
		return d.introspectionURI
	}
	return ""
}

// verify answers an opaque token from the cache, or by one introspection
// shared by every caller asking for the same token meanwhile. The
// introspection request takes a slot of the verifier's budget (as a
// signature check does), so that random opaque tokens cannot make the
// service an amplifier against the endpoint; it is cancelled when every
// caller waiting for it has left.
func (in *introspector) verify(ctx context.Context, token string, now time.Time) (Principal, error) {
	if len(token) > in.v.cfg.maxTokenSize {
		return Principal{}, refuse(ReasonTooLarge, errTooLarge)
	}
	if !b64token.Valid(token) {
		return Principal{}, refuse(ReasonMalformed, errNotBearer)
	}
	key := sha256.Sum256([]byte(token))
	if p, te, ok := in.cache.get(key, now); ok {
		if te != nil {
			return Principal{}, te
		}
		return p, nil
	}
	if c := callerOf(ctx); c != nil {
		if wait, held := c.IntrospectionHeld(); held {
			// The gate holds this caller: its inactive tokens spent its
			// flood budget. No request for it now.
			return Principal{}, &HeldError{Wait: wait}
		}
	}
	f, started := in.flights.join(in.base, key)
	defer in.flights.leave(key, f)
	if started {
		// The turn is queued under this caller's address, read here
		// rather than in the flight's goroutine.
		turn := ContextWithCaller(f.ctx, fixedCaller(fairnessKeyOf(ctx)))
		go func() {
			val, err := in.introspect(turn, f, token, key)
			in.flights.finish(key, f, val, err)
		}()
	}
	select {
	case <-f.done:
		if f.err != nil {
			return Principal{}, f.err
		}
		if f.val.err != nil {
			if started && f.val.sent && f.val.err.Reason == ReasonInactive {
				// This caller's token cost a request: the gate counts it.
				return Principal{}, refuse(ReasonInactive, ErrInactiveFetched)
			}
			return Principal{}, f.val.err
		}
		return f.val.p, nil
	case <-ctx.Done():
		if !f.asking.Load() {
			return Principal{}, fmt.Errorf("%w: the request ended while waiting for a turn to introspect: %w", ErrBusy, context.Cause(ctx))
		}
		return Principal{}, fmt.Errorf("%w: the request ended while waiting for the answer: %w", ErrIntrospectionUnavailable, context.Cause(ctx))
	}
}

// answer is the verdict of one introspection: a principal, or a refusal,
// and whether a request to the endpoint fetched it (not a cache).
type answer struct {
	p    Principal
	err  *TokenError
	sent bool
}

// introspect answers token from this replica's cache, else from the
// store the replicas share, else by one request to the endpoint (in f's
// turn of the budget, under ctx), and caches the verdict (in both); a
// failure is returned as the error and cached nowhere.
func (in *introspector) introspect(ctx context.Context, f *flight, token string, key [sha256.Size]byte) (answer, error) {
	now := in.v.cfg.clock()
	if p, te, ok := in.cache.get(key, now); ok {
		// Another flight for this token finished just before this one
		// started.
		return answer{p: p, err: te}, nil
	}
	shared := in.shared.Load()
	if shared != nil {
		sctx, cancel := context.WithTimeout(ctx, in.v.cfg.fetchTimeout)
		p, te, until, ok := shared.get(sctx, key, now)
		cancel()
		if ok {
			in.cache.put(key, p, te, until, now)
			return answer{p: p, err: te}, nil
		}
	}
	r, p, until, err := in.ask(ctx, f, token, now)
	var te *TokenError
	switch {
	case err == nil:
		in.metrics.count(outcomeActive)
		if limit := now.Add(in.ttl); limit.Before(until) {
			until = limit
		}
	case errors.As(err, &te):
		if te.Reason == ReasonInactive {
			in.metrics.count(outcomeInactive)
		} else {
			in.metrics.count(outcomeRefused)
		}
		p, until = Principal{}, now.Add(min(inactiveTTL, in.ttl))
	case errors.Is(err, ErrBusy):
		// No turn came: no request was sent.
		return answer{}, err
	default:
		in.metrics.count(outcomeFailed)
		return answer{}, err
	}
	in.cache.put(key, p, te, until, now)
	if shared != nil {
		sctx, cancel := context.WithTimeout(in.base, in.v.cfg.fetchTimeout)
		shared.put(sctx, key, r, until, now)
		cancel()
	}
	return answer{p: p, err: te, sent: true}, nil
}

// close ends the introspection requests in flight.
func (in *introspector) close() {
	if in != nil {
		in.cancel()
	}
}
