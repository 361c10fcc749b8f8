package authn

import (
	"context"
	"net/http"

	"github.com/svckit/svc/modules/authn/bans"
	"github.com/svckit/svc/modules/authn/bearer"
	"github.com/svckit/svc/modules/authn/flood"
	"github.com/svckit/svc/modules/store"
)

// Option configures the authentication gate (fxsvc.Authn and [New]). Options are read once: nothing inbound changes while the
// service runs.
type Option func(*gateConfig)

// Check sets the post-verification hook. It runs after the token verified
// and before the app sees the request, on every request that carries a
// verified token (cache-answered ones, anonymous routes, websocket
// handshakes), never on one without a token or on an excluded path.
//
// Return the principal (possibly with Extra set) to serve the request. A zero
// Principal with a nil error refuses it: 401 token-rejected, reason revoked.
// A non-zero principal that is not Authenticated is a programming error and
// answers 500. [ClaimsChallenge] refuses it 401 insufficient-claims, asking
// for a token with more claims. An error the registered error format knows
// (say a *svcerrors.DeadlineExceeded) is rendered; any other error answers
// 500.
// Its answer is never cached.
func Check(fn func(ctx context.Context, p bearer.Principal, r *http.Request) (bearer.Principal, error)) Option {
	return func(c *gateConfig) { c.check = fn }
}

type gateConfig struct {
	exclude              []string
	check                func(context.Context, bearer.Principal, *http.Request) (bearer.Principal, error)
	resource             string
	authorizationServers []string
	scopes               []string
	endUser              bool
	openAPI              bool
	bans                 *bans.Bans
	flood                *flood.Limit
	sharedBans           store.Bans
	sharedFlood          store.Flood
	sharedIntrospections store.Introspections
	claimsAuthority      *challengeAuthority // ClaimsChallengeAuthority
	dpop                 *dpopPolicy
	certBound            *certPolicy
	actors               *actorPolicy // Actors; nil accepts any chain
	acrLevels            *acrLevels   // ACRLevels; nil compares acr values as they are
}

// Exclude names paths that are never authenticated: an exact path such as
// "/healthz", or a prefix ending in "/*" such as "/docs/*" (which also
// matches "/docs" where the router sends "/docs" to a route the exclusion
// covers, such as Huma's /docs page; never where it sends it to another
// route such as "/{id}"). A token sent there is not read. Patterns matching every
// path ("*", "/*") and prefixes ending inside a segment ("/public*") are
// refused when the gate is built.
func Exclude(patterns ...string) Option {
	return func(c *gateConfig) { c.exclude = append(c.exclude, patterns...) }
}

// Resource enables RFC 9728 protected-resource metadata: the URL clients
// call as they see it (behind any proxy). It must be https, with no
// fragment and no brace in its path. The document is served at
// /.well-known/oauth-protected-resource<path of the URL>, and every Bearer
// challenge then carries resource_metadata.
func Resource(url string) Option { return func(c *gateConfig) { c.resource = url } }

// AuthorizationServers lists the issuers the metadata names. Needed with
// Resource when the verifier names no issuers itself.
func AuthorizationServers(issuers ...string) Option {
	return func(c *gateConfig) { c.authorizationServers = append(c.authorizationServers, issuers...) }
}

// Scopes lists, in the metadata, the scopes a client may ask for. Omitted,
// none are listed.
func Scopes(scopes ...string) Option {
	return func(c *gateConfig) { c.scopes = append(c.scopes, scopes...) }
}

// EndUser puts enduser.id (the subject) on the server span of authenticated
// requests, and on refusals whose signature verified. Off by default: a
// subject may be personal data.
func EndUser(on bool) Option { return func(c *gateConfig) { c.endUser = on } }

// OpenAPI(false) leaves the API schema alone (routers that publish one).
// Default true.
func OpenAPI(on bool) Option { return func(c *gateConfig) { c.openAPI = on } }

// Bans bans callers that present forged tokens (a signature or algorithm
// that does not verify), and opaque tokens their own requests had
// introspected as inactive (each cost a request to the issuer; one
// answered from the cache costs none and does not count): a banned caller is answered 429 client-banned
// with Retry-After before its token is verified, counted and not logged.
// Off unless given. The caller's address is the one the app's trusted
// proxies name (fxsvc.TrustedProxies, SVC_HTTP_TRUSTED_PROXIES); fxsvc.Authn
// refuses Bans until they are declared, so that the address banned is the
// caller's and not a proxy's.
func Bans(b *bans.Bans) Option { return func(c *gateConfig) { c.bans = b } }

// Flood limits, per caller address, requests with a valid token to URLs no
// route answers, on an app with an anonymous route requests without a
// token (which must be routed to find out), and opaque tokens the
// caller's own requests had introspected as inactive. Over the limit they
// are answered 429 rate-limit-exceeded; once inactive answers have spent
// a caller's budget, its opaque tokens that would need a new
// introspection request are answered so too, without the request, until
// the budget refills (those already answered are still answered from the
// cache). Off unless given.
func Flood(l *flood.Limit) Option { return func(c *gateConfig) { c.flood = l } }

// sharedStores names the stores the gate's [Bans] and [Flood] keep their
// state in when they were built without one (bans.Store, flood.Store
// win), and the one its verifier shares introspection answers in when it
// was built without one (bearer.Store wins):
// stores shared by the app's replicas, so that a ban started on one
// replica refuses the caller on all of them, an address has one flood
// budget and a token is introspected once. fxsvc passes the graph's
// stores (fxredis.Redis) this way, through [SharedStores]. A nil
// store leaves that component in memory; none turns Bans, Flood or
// Introspect on.
func sharedStores(b store.Bans, f store.Flood, i store.Introspections) Option {
	return func(c *gateConfig) { c.sharedBans, c.sharedFlood, c.sharedIntrospections = b, f, i }
}
