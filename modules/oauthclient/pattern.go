package oauthclient

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/svckit/svc/internal/oauthenv"
	"github.com/svckit/svc/internal/scopetoken"
)

// Token type identifiers of RFC 8693.
const (
	TokenTypeAccessToken = "urn:ietf:params:oauth:token-type:access_token"
	TokenTypeJWT         = "urn:ietf:params:oauth:token-type:jwt"
)

type patternKind int

const (
	kindClientCredentials patternKind = iota
	kindTokenExchange
	kindOnBehalfOf
)

// Pattern fetches, caches and attaches the tokens for one API. Its name is
// the API it calls and its environment prefix. Build one with
// [ClientCredentials], [TokenExchange] or [TokenExchangeOnBehalfOf]. A
// Pattern is safe for concurrent use; its tokens live in memory in this
// process only.
type Pattern struct {
	name      string
	kind      patternKind
	grant     string
	grantKind string
	client    *Client
	form      url.Values   // the fields every request of the pattern sends
	actor     *actorSource // the exchange's actor token; nil for none
	target    string       // audience, resource and scopes, for the exchange cache key

	slot     slot           // client credentials
	exchange *exchangeCache // token exchange
	bulkhead bulkhead       // requests in flight through Transport

	resilience *Resilience // nil without it
	hosts      *hosts      // with resilience: the breakers and retry budgets

	hcOnce sync.Once
	hc     *http.Client
}

// PatternOption configures a pattern. Code options override environment
// variables.
type PatternOption interface {
	applyPattern(*patternConfig) error
}

type patternConfig struct {
	audience, resource, scopes []string
	audSet, resSet, scopesSet  bool
	client                     *Client
	subjectTokenType           string
	requestedTokenType         string
	cacheSize                  int
	params                     url.Values   // TokenParam and _PARAMS
	actor                      *actorSource // Actor, ActorAssertionFile
	resilience                 *Resilience
}

type patternOption func(*patternConfig) error

func (f patternOption) applyPattern(c *patternConfig) error { return f(c) }

// Audience sets the audience form field(s) of the token request: the API's
// identifier on servers that use it (Auth0, Okta, RFC 8693). Overrides
// SVC_CLIENTCREDENTIALS_<NAME>_AUDIENCE / SVC_TOKENEXCHANGE_<NAME>_AUDIENCE.
func Audience(audiences ...string) PatternOption {
	return patternOption(func(c *patternConfig) error { c.audience, c.audSet = audiences, true; return nil })
}

// Resource sets the resource form field(s) (RFC 8707 resource indicators):
// the API's URL. Overrides SVC_..._<NAME>_RESOURCE.
func Resource(resources ...string) PatternOption {
	return patternOption(func(c *patternConfig) error {
		for _, r := range resources {
			if u, err := url.Parse(r); err != nil || !u.IsAbs() || u.Fragment != "" {
				return &ConfigError{Setting: "oauthclient.Resource", Problem: "a resource must be an absolute URL without a fragment (RFC 8707)"}
			}
		}
		c.resource, c.resSet = resources, true
		return nil
	})
}

// Scopes sets the scope form field (joined with spaces). Overrides
// SVC_..._<NAME>_SCOPES. It refuses a scope that is not an RFC 6749 §3.3
// scope-token: empty, or holding a space, '"', '\\', a control character
// or a byte outside printable ASCII.
func Scopes(scopes ...string) PatternOption {
	return patternOption(func(c *patternConfig) error {
		for _, s := range scopes {
			if problem := scopeTokenProblem(s); problem != "" {
				return &ConfigError{Setting: "oauthclient.Scopes", Problem: problem}
			}
		}
		c.scopes, c.scopesSet = scopes, true
		return nil
	})
}

// scopeTokenProblem says why s is not a scope-token (RFC 6749 §3.3), or
// "" when it is one.
func scopeTokenProblem(s string) string {
	switch {
	case s == "":
		return "a scope is empty"
	case !scopetoken.Valid(s):
		return "scope " + strconv.QuoteToASCII(s) + " holds a character RFC 6749 §3.3 does not allow in a scope " +
			"(a space, '\"', '\\', a control character or non-ASCII); separate scopes with spaces or commas"
	}
	return ""
}

// WithClient makes the pattern fetch through c instead of the app's client.
func WithClient(c *Client) PatternOption {
	return patternOption(func(pc *patternConfig) error {
		if c == nil {
			return &ConfigError{Setting: "oauthclient.WithClient", Problem: "the client is nil"}
		}
		pc.client = c
		return nil
	})
}

// SubjectTokenType sets subject_token_type for RFC 8693 exchanges (default
// [TokenTypeAccessToken]).
func SubjectTokenType(uri string) PatternOption {
	return patternOption(func(c *patternConfig) error { c.subjectTokenType = uri; return nil })
}

// RequestedTokenType sets requested_token_type for RFC 8693 exchanges (not
// sent by default).
func RequestedTokenType(uri string) PatternOption {
	return patternOption(func(c *patternConfig) error { c.requestedTokenType = uri; return nil })
}

// defaultExchangeCacheSize bounds a token-exchange pattern's cache.
const defaultExchangeCacheSize = 10000

// ExchangeCacheSize bounds how many exchanged tokens a token-exchange
// pattern keeps (default [defaultExchangeCacheSize]); the least recently
// used goes first.
func ExchangeCacheSize(n int) PatternOption {
	return patternOption(func(c *patternConfig) error {
		if n < 1 {
			return &ConfigError{Setting: "oauthclient.ExchangeCacheSize", Problem: "must be at least 1"}
		}
		c.cacheSize = n
		return nil
	})
}

// ClientCredentials is a pattern that fetches tokens as the service itself
// (grant client_credentials), for work with no user behind it. Settings
// come from SVC_CLIENTCREDENTIALS_<NAME>_AUDIENCE, _RESOURCE and _SCOPES
// (NAME upper-cased, other characters than letters and digits as '_') and
// from options. It refuses a name that is empty, longer than 64 characters
// or holds anything but letters, digits, '.', '-' and '_', and a missing
// client: pass [WithClient] (fxsvc.ClientCredentials passes the app's).
func ClientCredentials(name string, opts ...PatternOption) (*Pattern, error) {
	return newPattern(kindClientCredentials, name, opts)
}

// TokenExchange is a pattern that exchanges a caller's verified token for a
// token to another API, on the caller's behalf (RFC 8693). Use it with
// [Pattern.TokenFor] or [Pattern.TransportFor]. Exchanged tokens are cached
// per caller until the earlier of their expiry and the caller token's exp,
// never refreshed ahead; a caller token without exp is not cached. Settings
// come from SVC_TOKENEXCHANGE_<NAME>_AUDIENCE, _RESOURCE and _SCOPES and
// from options; it refuses what [ClientCredentials] refuses.
func TokenExchange(name string, opts ...PatternOption) (*Pattern, error) {
	return newPattern(kindTokenExchange, name, opts)
}

// TokenExchangeOnBehalfOf is [TokenExchange] with the on-behalf-of grant
// (the JWT bearer grant with requested_token_use=on_behalf_of, as
// Microsoft Entra ID uses) instead of RFC 8693.
func TokenExchangeOnBehalfOf(name string, opts ...PatternOption) (*Pattern, error) {
	return newPattern(kindOnBehalfOf, name, opts)
}

func newPattern(kind patternKind, name string, opts []PatternOption) (*Pattern, error) {
	if !validName(name) {
		return nil, &ConfigError{Setting: "pattern name", Problem: "use 1 to 64 letters, digits, '.', '-' or '_'"}
	}
	p := &Pattern{name: name, kind: kind}
	switch kind {
	case kindClientCredentials:
		p.grant, p.grantKind = grantClientCredentials, "client_credentials"
	case kindTokenExchange:
		p.grant, p.grantKind = grantTokenExchange, "token_exchange"
	default:
		p.grant, p.grantKind = grantJWTBearer, "on_behalf_of"
	}
	envPrefix := oauthenv.PatternPrefix(name, kind != kindClientCredentials)

	cfg := patternConfig{subjectTokenType: TokenTypeAccessToken, cacheSize: defaultExchangeCacheSize}
	useEnv := true
	var envAttempt time.Duration // RESILIENCE_ATTEMPT_TIMEOUT; 0 when unset
	for _, o := range opts {
		if _, ok := o.(envOff); ok {
			useEnv = false
		}
	}
	if useEnv {
		var err error
		if envAttempt, err = readPatternEnv(kind, envPrefix, &cfg); err != nil {
			return nil, err
		}
	}
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o.applyPattern(&cfg); err != nil {
			return nil, err
		}
	}
	if envAttempt > 0 {
		if cfg.resilience == nil {
			return nil, &ConfigError{Setting: envPrefix + envAttemptTimeout, Problem: "applies to a resilient pattern: set " + envPrefix + "RESILIENCE=on, or pass oauthclient.Resilience"}
		}
		if cfg.resilience.AttemptTimeout == 0 {
			cfg.resilience.AttemptTimeout = envAttempt
		}
	}
	if !cfg.resSet && len(cfg.resource) > 0 {
		if err := Resource(cfg.resource...).applyPattern(&cfg); err != nil {
			return nil, &ConfigError{Setting: envPrefix + "RESOURCE", Problem: err.(*ConfigError).Problem}
		}
	}
	if !cfg.scopesSet && len(cfg.scopes) > 0 {
		if err := Scopes(cfg.scopes...).applyPattern(&cfg); err != nil {
			return nil, &ConfigError{Setting: envPrefix + "SCOPES", Problem: err.(*ConfigError).Problem}
		}
	}
	if cfg.actor != nil && kind != kindTokenExchange {
		return nil, &ConfigError{Setting: cfg.actor.setting, Problem: "pattern " + name + " is not a TokenExchange pattern: only RFC 8693 token exchange names an actor"}
	}
	if cfg.client == nil {
		return nil, &ConfigError{Setting: "oauthclient.WithClient", Problem: "pattern " + name + " has no client: pass oauthclient.WithClient, or build it with fxsvc so it gets the app's client"}
	}
	p.client = cfg.client
	p.actor = cfg.actor
	p.bulkhead.limit = int64(cfg.client.bulkhead)
	if cfg.resilience != nil {
		p.resilience, p.hosts = cfg.resilience, newHosts(cfg.resilience)
	}
	p.form = url.Values{}
	for _, a := range cfg.audience {
		p.form.Add("audience", a)
	}
	for _, r := range cfg.resource {
		p.form.Add("resource", r)
	}
	if len(cfg.scopes) > 0 {
		p.form.Set("scope", strings.Join(cfg.scopes, " "))
	}
	for name, values := range cfg.params {
		p.form[name] = values
	}
	switch kind {
	case kindTokenExchange:
		p.form.Set("subject_token_type", cfg.subjectTokenType)
		if cfg.requestedTokenType != "" {
			p.form.Set("requested_token_type", cfg.requestedTokenType)
		}
	case kindOnBehalfOf:
		p.form.Set("requested_token_use", "on_behalf_of")
	}
	if kind != kindClientCredentials {
		p.exchange = newExchangeCache(cfg.cacheSize)
		p.target = p.form.Encode()
	}
	return p, nil
}

func validName(name string) bool {
	if name == "" || len(name) > 64 {
		return false
	}
	for i := 0; i < len(name); i++ {
		ch := name[i]
		if !(ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || ch == '.' || ch == '-' || ch == '_') {
			return false
		}
	}
	return true
}

// Name returns the pattern's name.
func (p *Pattern) Name() string { return p.name }

// request builds the token request of one fetch.
func (p *Pattern) request(spec fetchSpec, trigger string) *tokenRequest {
	form := make(url.Values, len(p.form)+1)
	for k, v := range p.form {
		form[k] = v
	}
	switch p.kind {
	case kindTokenExchange:
		form.Set("subject_token", spec.caller)
	case kindOnBehalfOf:
		form.Set("assertion", spec.caller)
	}
	return &tokenRequest{
		pattern:        p.name,
		grant:          p.grant,
		kind:           p.grantKind,
		form:           form,
		trigger:        trigger,
		capExpiry:      spec.capExpiry,
		noRefreshAhead: p.kind != kindClientCredentials,
		actor:          p.actor,
	}
}

// Token returns the client-credentials token for the pattern's API, from
// the cache when it is fresh. Inside the refresh window it returns the
// cached token and refreshes in the background; with no usable token it
// waits for one fetch shared with every concurrent caller, or for ctx.
// Cancelling ctx ends the wait, not the fetch. On a token-exchange pattern
// it fails with [errCallerTokenRequired].
//
// Errors: [*UnavailableError], [*ClientRejectedError], [*TokenRefusedError],
// [*DiscoveryError], [*ConfigError], [ErrClosed] and ctx's error.
func (p *Pattern) Token(ctx context.Context) (AccessToken, error) {
	t, _, err := p.token(ctx, "", false)
	if err != nil {
		return AccessToken{}, err
	}
	return t.AccessToken, nil
}

// TokenFor returns a token for the pattern's API on behalf of the caller
// whose verified token is callerToken (authn.TokenFrom(ctx) inbound). The
// caller token is passed explicitly: it is never read from ctx. On a
// client-credentials pattern it fails with [errNotExchange]; with an empty
// caller token, [errEmptyCallerToken]. Other errors as [Pattern.Token].
func (p *Pattern) TokenFor(ctx context.Context, callerToken string) (AccessToken, error) {
	t, _, err := p.token(ctx, callerToken, true)
	if err != nil {
		return AccessToken{}, err
	}
	return t.AccessToken, nil
}

// token returns the token and the slot that caches it (nil when the token
// is not cached).
func (p *Pattern) token(ctx context.Context, caller string, exchange bool) (*token, *slot, error) {
	if p.client.closedFlag.Load() {
		return nil, nil, ErrClosed
	}
	if !exchange {
		if p.kind != kindClientCredentials {
			return nil, nil, errCallerTokenRequired
		}
		t, err := p.get(ctx, &p.slot, fetchSpec{})
		return t, &p.slot, err
	}
	if p.kind == kindClientCredentials {
		return nil, nil, errNotExchange
	}
	if caller == "" {
		return nil, nil, errEmptyCallerToken
	}
	return p.exchangeToken(ctx, caller)
}
