package bearer

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/svckit/svc/modules/store"
)

// Defaults of the verifier options, as their documentation states them.
const (
	// defaultRetryInterval is the minimum time between two key fetches, and
	// how long a failed fetch is remembered.
	defaultRetryInterval = 30 * time.Second
	// defaultRotationCooldown is the least time between two key fetches
	// asked for by tokens naming an unknown kid: what a key rotation costs
	// the provider's new tokens at most.
	defaultRotationCooldown = 5 * time.Second
	// defaultRefreshInterval is how often keys are fetched again in the
	// background after a successful load. A shorter Cache-Control max-age
	// from the JWKS response is honoured, never below the retry interval.
	defaultRefreshInterval = time.Hour
	// defaultLeeway is the clock skew allowed on exp, nbf and iat.
	defaultLeeway = 30 * time.Second
	// defaultCacheBytes is the verification cache's memory budget: 64 MiB,
	// room for about 16,000 entries of a typical 1 KiB token with a handful
	// of claims, or about 500 of the densest 8 KiB tokens.
	defaultCacheBytes = 64 << 20
	// defaultMaxTokenSize is the longest token accepted, in bytes. Longer
	// tokens are refused with ReasonTooLarge before any parsing work.
	defaultMaxTokenSize = 8 << 10
	// defaultFetchTimeout bounds one discovery or JWKS fetch.
	defaultFetchTimeout = 10 * time.Second
	// maxDocumentSize bounds a discovery document or JWKS body.
	maxDocumentSize = 1 << 20
)

// VerifierOption changes a JWT verifier's settings. Invalid values are not
// applied silently: they make Open (and Verify) return a *ConfigError
// naming the option.
type VerifierOption func(*verifierConfig)

type verifierConfig struct {
	issuer, audience string
	retryInterval    time.Duration
	rotationCooldown time.Duration
	refreshInterval  time.Duration
	fetchTimeout     time.Duration
	leeway           time.Duration
	algorithms       []string
	tokenTypes       []string
	httpClient       *http.Client
	clock            func() time.Time
	cacheBytes       int64
	maxTokenSize     int
	maxVerifications int // 0: GOMAXPROCS
	verificationWait time.Duration
	logger           *zap.Logger
	loggerSet        bool        // Logger was given: setLogger leaves it be
	tenants          *tenantRule // Tenants, AnyTenant: the issuer is a template
	tenant           string      // a template's tenant: tid must name it
	introspect       *introspectSettings
	introspectionTTL time.Duration // 0: the default
	// introspectionStore is the Store option's.
	introspectionStore store.Introspections
	discovers          bool // built by Discover: an endpoint may be discovered
	profile            *ProviderProfile
	problems           []error
}

func defaultConfig(issuer, audience string) verifierConfig {
	return verifierConfig{
		issuer:           issuer,
		audience:         audience,
		retryInterval:    defaultRetryInterval,
		rotationCooldown: defaultRotationCooldown,
		refreshInterval:  defaultRefreshInterval,
		fetchTimeout:     defaultFetchTimeout,
		leeway:           defaultLeeway,
		clock:            time.Now,
		cacheBytes:       defaultCacheBytes,
		maxTokenSize:     defaultMaxTokenSize,
		verificationWait: defaultVerificationWait,
		logger:           zap.NewNop(),
	}
}

func (c *verifierConfig) refuse(setting, problem string) {
	c.problems = append(c.problems, &ConfigError{Setting: setting, Problem: problem})
}

// RetryInterval sets the minimum time between background key fetches and
// how long a failed fetch is remembered (default 30 s). Tokens naming an
// unknown kid may fetch sooner, once per RotationCooldown, unless the last
// fetch failed. It must be positive.
func RetryInterval(d time.Duration) VerifierOption {
	return setting("RetryInterval", d, d <= 0, "must be positive", func(c *verifierConfig) *time.Duration { return &c.retryInterval })
}

// RotationCooldown sets the least time between two key fetches asked for
// by tokens naming a kid the key set does not hold (default 5 s, and never
// more than RetryInterval). Once the last fetch is that old, such a token
// fetches the key set at once and waits for it, so after the provider
// rotates its keys its new tokens are refused for at most this long; a
// flood of forged kids still costs at most one fetch per cooldown. After a
// failed fetch the retry interval holds instead: a provider that is down
// is not asked again sooner. It must be positive.
func RotationCooldown(d time.Duration) VerifierOption {
	return setting("RotationCooldown", d, d <= 0, "must be positive", func(c *verifierConfig) *time.Duration { return &c.rotationCooldown })
}

// RefreshInterval sets how often keys are fetched again in the background
// after a successful load (default 1 h). A JWKS response's positive
// Cache-Control max-age shortens it, never below the retry interval;
// max-age=0, no-cache and no-store leave it as it is (many issuers send
// them on key sets, and an unknown kid fetches again anyway). It must be
// positive.
func RefreshInterval(d time.Duration) VerifierOption {
	return setting("RefreshInterval", d, d <= 0, "must be positive", func(c *verifierConfig) *time.Duration { return &c.refreshInterval })
}

// FetchTimeout bounds one discovery or JWKS fetch (default 10 s). It must be
// positive.
func FetchTimeout(d time.Duration) VerifierOption {
	return setting("FetchTimeout", d, d <= 0, "must be positive", func(c *verifierConfig) *time.Duration { return &c.fetchTimeout })
}

// Leeway sets the clock skew allowed when checking exp, nbf and iat
// (default 30 s). It must be between 0 and 5 minutes: a larger skew keeps
// revoked-by-expiry tokens alive.
func Leeway(d time.Duration) VerifierOption {
	return setting("Leeway", d, d < 0 || d > 5*time.Minute, "must be between 0 and 5m", func(c *verifierConfig) *time.Duration { return &c.leeway })
}

// Algorithms sets the accepted signature algorithms (default: RS256,
// RS384, RS512, PS256, PS384, PS512, ES256, ES384, EdDSA). ES512 is
// accepted only when named here: one P-521 check costs about thirty ES256
// ones, so by default a forged ES512 token is refused before any key work.
// Only the names above and ES512 are allowed: `none`, HMAC (HS*) and anything else is a
// configuration error, because a verifier holding public keys must never
// accept a symmetric or unsigned token.
func Algorithms(algs ...string) VerifierOption {
	return func(c *verifierConfig) {
		if len(algs) == 0 {
			c.refuse("Algorithms", "names no algorithm")
			return
		}
		for _, a := range algs {
			if _, ok := algByName(a); !ok {
				c.refuse("Algorithms", "unsupported algorithm "+quoteSetting(a)+
					"; allowed: RS256 RS384 RS512 PS256 PS384 PS512 ES256 ES384 ES512 EdDSA")
				return
			}
		}
		c.algorithms = append([]string(nil), algs...)
	}
}

// HTTPClient sets the client used for discovery and JWKS fetches (default:
// a client that follows redirects only to https or loopback addresses).
func HTTPClient(hc *http.Client) VerifierOption {
	return setting("HTTPClient", hc, hc == nil, "is nil", func(c *verifierConfig) **http.Client { return &c.httpClient })
}

// Clock sets the time source for exp, nbf and iat checks and for
// verification-cache expiry (default time.Now). Key-fetch pacing always uses
// the real monotonic clock.
func Clock(now func() time.Time) VerifierOption {
	return setting("Clock", now, now == nil, "is nil", func(c *verifierConfig) *func() time.Time { return &c.clock })
}

// CacheBytes sets the verification cache's memory budget in bytes (default
// 64 MiB); 0 turns the cache off, a negative value is
// refused. Each entry weighs an upper estimate of what it keeps alive (the
// token, its decoded claims, one slot per claim and per scope), so a flood
// of large, dense tokens cannot grow the heap past the budget. Entries live
// until the token's exp (plus leeway) or until their signing key leaves the
// key set. When the budget is reached, a W-TinyLFU policy admits a new
// token only if it is requested more often than the entry it would evict,
// so a scan of one-off tokens does not flush the callers that come back.
func CacheBytes(n int64) VerifierOption {
	return setting("CacheBytes", n, n < 0, "must not be negative", func(c *verifierConfig) *int64 { return &c.cacheBytes })
}

// MaxTokenSize sets the longest token accepted, in bytes (default 8 KiB,
// range 256 B to 64 KiB). Longer tokens are refused with ReasonTooLarge
// before any parsing work.
func MaxTokenSize(n int) VerifierOption {
	return setting("MaxTokenSize", n, n < 256 || n > 64<<10, "must be between 256 and 65536 bytes", func(c *verifierConfig) *int { return &c.maxTokenSize })
}

// Logger sets where key-loading events go (default: nowhere, unless
// fxsvc.Authn hands the verifier the app's logger, which it does only to
// a verifier built without this option that it has not yet opened).
// Tokens and key material are never logged.
func Logger(l *zap.Logger) VerifierOption {
	return func(c *verifierConfig) {
		if l == nil {
			c.refuse("Logger", "is nil")
			return
		}
		c.logger, c.loggerSet = l, true
	}
}

// TokenTypes requires the JWS `typ` header to be one of types, compared
// case-insensitively with an optional "application/" prefix (RFC 7515
// §4.1.9). TokenTypes("at+jwt") enforces RFC 9068 access tokens, so an ID
// token or another JWT of the same issuer cannot stand in for one. Off by
// default, because many providers still send "JWT" or no typ at all. A
// mismatch is refused with ReasonTokenType before the signature is checked.
func TokenTypes(types ...string) VerifierOption {
	return func(c *verifierConfig) {
		if len(types) == 0 {
			c.refuse("TokenTypes", "names no type")
			return
		}
		for _, t := range types {
			if t == "" || strings.TrimSpace(t) != t {
				c.refuse("TokenTypes", "holds an empty type or one with spaces")
				return
			}
			c.tokenTypes = append(c.tokenTypes, normalizeType(t))
		}
	}
}

// ErrBusy is returned by Verify when a fresh verification waited
// VerificationWait for one of the MaxConcurrentVerifications slots without
// getting one, or its request ended while it waited. The gate answers 503
// bulkhead-full with Retry-After, and bans never count it: the token was
// not judged. Test with errors.Is.
var ErrBusy = errors.New("authn: too many token verifications in progress")

// defaultVerificationWait is how long a fresh verification waits for a
// slot of the budget before Verify gives up with ErrBusy.
const defaultVerificationWait = 2 * time.Second

// MaxConcurrentVerifications bounds how many fresh (uncached) signature
// verifications run at once; default GOMAXPROCS when the verifier is
// built. The others wait their turn, for at most VerificationWait and
// never past their request's context; then Verify returns ErrBusy. Tokens
// served from the verification cache never count, and neither do tokens
// refused before their signature (malformed, unknown kid, wrong
// algorithm). With Introspect, each introspection request holds a slot
// too while it is sent, so the bound caps the requests to the endpoint.
//
// Turns are shared fairly between callers: the gate queues each waiting
// verification under its client address, and a freed slot goes to the
// next address in turn, not to the longest queue. A flood of forged
// tokens from a few addresses then takes at most n cores and delays
// everyone else by a few verifications, not by the flood's length. n must
// be at least 1.
func MaxConcurrentVerifications(n int) VerifierOption {
	return setting("MaxConcurrentVerifications", n, n < 1, "must be at least 1", func(c *verifierConfig) *int { return &c.maxVerifications })
}

// VerificationWait sets how long a fresh verification may wait for a slot
// of the budget (see MaxConcurrentVerifications) before Verify returns
// ErrBusy; default 2 s. Waiting costs a parked
// goroutine, not CPU, so a cold start's burst of new tokens is served in
// turn rather than refused. It must be positive.
func VerificationWait(d time.Duration) VerifierOption {
	return setting("VerificationWait", d, d <= 0, "must be positive", func(c *verifierConfig) *time.Duration { return &c.verificationWait })
}

// setting is the option that stores v in the field of the configuration
// that field points at, or, when bad, refuses it naming the option.
func setting[T any](name string, v T, bad bool, problem string, field func(*verifierConfig) *T) VerifierOption {
	return func(c *verifierConfig) {
		if bad {
			c.refuse(name, problem)
			return
		}
		*field(c) = v
	}
}
