package oauthclient

import (
	"crypto"
	"net/http"
	"time"

	"go.uber.org/zap"

	"github.com/svckit/svc/secret"
)

// Defaults of the client's timing settings.
const (
	// defaultTimeout bounds one token request or one discovery request.
	defaultTimeout = 10 * time.Second
	// defaultRefreshBefore is how long before expiry a token is refreshed
	// when the server sends no refresh_in (capped at half the lifetime).
	defaultRefreshBefore = time.Minute
	// defaultRetryInterval is how long a failure is remembered before the
	// next fetch, and the least time between two drops of a token refused
	// by an API.
	defaultRetryInterval = 10 * time.Second
)

// Option configures a Client. Code options override environment variables.
type Option interface {
	applyClient(*clientConfig) error
}

// clock tells the client the time: the system clock, or the one [Clock]
// gave.
type clock interface {
	Now() time.Time
}

type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

// funcClock is the clock [Clock] gives.
type funcClock func() time.Time

func (f funcClock) Now() time.Time { return f() }

// clientConfig is what options and the environment produce; New checks it
// and freezes it into the Client.
type clientConfig struct {
	issuer           string
	tokenEndpoint    string
	clientID         string
	clientSecret     secret.String
	clientSecretFile string
	assertionFile    string
	tlsCertFile      string // SVC_OAUTHCLIENT_TLS_CERT_FILE or TLSClientAuth's
	tlsKeyFile       string
	timeout          time.Duration
	refreshBefore    time.Duration
	retryInterval    time.Duration
	auth             ClientAuth
	envMethod        SecretMethod // SVC_OAUTHCLIENT_AUTH_METHOD, when envMethodSet
	envMethodSet     bool
	envTLS           string // SVC_OAUTHCLIENT_AUTH_METHOD when it names an RFC 8705 method
	httpClient       *http.Client
	clock            clock
	logger           *zap.Logger
	allowHTTP        bool
	jitter           func(max time.Duration) time.Duration
	dpop             bool          // oauthclient.DPoP was passed
	dpopSigner       crypto.Signer // its signer; nil for a generated key
	dpopKey          *dpopKey      // built by finish
	bulkhead         int           // Bulkhead, SVC_OAUTHCLIENT_BULKHEAD
	maxFetches       int           // MaxConcurrentFetches, SVC_OAUTHCLIENT_FETCH
}

type clientOption func(*clientConfig) error

func (f clientOption) applyClient(c *clientConfig) error { return f(c) }

// Issuer sets the authorization server's issuer. Its metadata (RFC 8414,
// then OpenID Connect discovery) is read when the client opens, for the
// token endpoint and the client authentication methods it supports. The
// issuer is also the default audience of signed client assertions.
// Overrides SVC_OAUTHCLIENT_ISSUER.
func Issuer(issuer string) Option {
	return clientOption(func(c *clientConfig) error { c.issuer = issuer; return nil })
}

// TokenEndpoint sets the token endpoint. With it the client runs no
// discovery, even when an issuer is also set (the issuer then only serves
// as the assertion audience). Overrides SVC_OAUTHCLIENT_TOKEN_ENDPOINT.
func TokenEndpoint(url string) Option {
	return clientOption(func(c *clientConfig) error { c.tokenEndpoint = url; return nil })
}

// ClientID sets the client ID. Overrides SVC_OAUTHCLIENT_CLIENT_ID.
func ClientID(id string) Option {
	return clientOption(func(c *clientConfig) error { c.clientID = id; return nil })
}

// ClientSecret sets the client secret used by [Secret]. It replaces a secret
// file set by the environment. Overrides SVC_OAUTHCLIENT_CLIENT_SECRET.
func ClientSecret(s secret.String) Option {
	return clientOption(func(c *clientConfig) error {
		c.clientSecret, c.clientSecretFile = s, ""
		return nil
	})
}

// ClientSecretFile names a file holding the client secret (a mounted
// secret). The file is read again on every token fetch, so a rotated secret
// takes effect without a restart; a trailing newline is ignored. It must be
// readable when the client is built. Overrides
// SVC_OAUTHCLIENT_CLIENT_SECRET_FILE.
func ClientSecretFile(path string) Option {
	return clientOption(func(c *clientConfig) error {
		c.clientSecretFile, c.clientSecret = path, ""
		return nil
	})
}

// Timeout bounds each token and discovery request (default
// [defaultTimeout]), the token request's client authentication (an
// [Assertion] source, a signer) included. A token request that times out is not retried.
// Overrides SVC_OAUTHCLIENT_TIMEOUT.
func Timeout(d time.Duration) Option {
	return clientOption(func(c *clientConfig) error { c.timeout = d; return nil })
}

// RefreshBefore sets how long before expiry a cached token is refreshed when
// the server sends no refresh_in (default [defaultRefreshBefore]). It is
// capped at half the token's lifetime. Overrides
// SVC_OAUTHCLIENT_REFRESH_BEFORE.
func RefreshBefore(d time.Duration) Option {
	return clientOption(func(c *clientConfig) error { c.refreshBefore = d; return nil })
}

// RetryInterval sets how long a failed fetch is remembered and the least
// time between two drops of a token an API refused (default
// [defaultRetryInterval]). A failure is remembered at most until the
// cached token of the pattern asking expires, except a server's
// Retry-After. For short-lived tokens keep Timeout + RetryInterval below
// the refresh window (see the package doc). Overrides
// SVC_OAUTHCLIENT_RETRY_INTERVAL.
func RetryInterval(d time.Duration) Option {
	return clientOption(func(c *clientConfig) error { c.retryInterval = d; return nil })
}

// HTTPClient sets the HTTP client used for discovery and token requests
// (for a proxy or private CAs). The client's CheckRedirect is not used:
// token and discovery requests never follow redirects. Its Timeout, if any,
// applies on top of [Timeout].
func HTTPClient(hc *http.Client) Option {
	return clientOption(func(c *clientConfig) error {
		if hc == nil {
			return &ConfigError{Setting: "oauthclient.HTTPClient", Problem: "the HTTP client is nil"}
		}
		c.httpClient = hc
		return nil
	})
}

// Clock sets what the client reads the time from for expiry, refresh
// windows and failure memory, so that a test steps through them without
// sleeping. It refuses a nil func.
func Clock(now func() time.Time) Option {
	return clientOption(func(c *clientConfig) error {
		if now == nil {
			return &ConfigError{Setting: "oauthclient.Clock", Problem: "the clock is nil"}
		}
		c.clock = funcClock(now)
		return nil
	})
}

// Logger sets a logger for failed fetches: a warning with the pattern,
// grant, error type and status, at most once per pattern and error type a
// minute (the next one carries the count held back as suppressed), and,
// once, an info line when a pattern's fetch works again after failures.
// Tokens, secrets, assertions and server response bodies are never logged.
func Logger(l *zap.Logger) Option {
	return clientOption(func(c *clientConfig) error { c.logger = l; return nil })
}

// AllowInsecureHTTP lets the issuer and token endpoint use plain http on a
// host that is not loopback (for a development network). Without it, New
// and discovery refuse http anywhere but 127.0.0.0/8, ::1 and localhost,
// since client credentials would travel in clear.
func AllowInsecureHTTP() Option {
	return clientOption(func(c *clientConfig) error { c.allowHTTP = true; return nil })
}

// envOff is accepted by New and by the pattern constructors.
type envOff struct{}

func (envOff) applyClient(*clientConfig) error   { return nil }
func (envOff) applyPattern(*patternConfig) error { return nil }

// WithoutEnv makes New or a pattern constructor ignore environment
// variables: only code options apply.
func WithoutEnv() interface {
	Option
	PatternOption
} {
	return envOff{}
}
