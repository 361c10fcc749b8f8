package oauthclient

import (
	"context"
	"errors"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/svckit/svc/internal/urlshape"
	"github.com/svckit/svc/secret"
)

// Client holds what every pattern shares: the authorization server, the
// client's identity and authentication, timing settings and the failure
// memory. It is a lifecycle.Component: Open runs discovery when an issuer is
// set; Close stops every fetch in flight. Patterns ([ClientCredentials],
// [TokenExchange]) hold the per-API settings and caches and use a Client to
// fetch.
//
// A Client is safe for concurrent use. Fetches run on goroutines the client
// owns, so cancelling the request that started one does not cancel it;
// Close does.
type Client struct {
	issuer        string
	clientID      string
	clientSecret  secret.String
	secretFile    string
	assertionFile string
	timeout       time.Duration
	refreshBefore time.Duration
	retryInterval time.Duration
	auth          ClientAuth
	http          *http.Client
	clock         clock
	logger        *zap.Logger
	fetchLog      fetchLog // failed fetches, one line per kind a minute
	allowHTTP     bool
	jitter        func(max time.Duration) time.Duration
	dpop          *dpopKey       // nil without oauthclient.DPoP
	cert          *clientCert    // nil unless the client authenticates with TLSClientAuth
	tokenCerts    certTransports // token requests presenting the certificate
	bound         boundBases     // API requests presenting it, per Pattern.Transport base
	bulkhead      int            // each pattern's cap on requests in flight; 0 none
	fetchTurns    chan struct{}  // MaxConcurrentFetches places; nil for no cap
	epoch         time.Time      // the clock at New; cache marks count from it
	sysClock      bool           // the clock is the system clock

	meta    atomic.Pointer[metadata]
	discoMu sync.Mutex
	memory  failureMemory

	ctx        context.Context
	cancel     context.CancelFunc
	mu         sync.Mutex
	closed     bool
	closedFlag atomic.Bool // closed, read without the lock on the cache-hit path
	wg         sync.WaitGroup
}

// New builds a client from environment variables (SVC_OAUTHCLIENT_*) and
// options; options override the environment, except
// SVC_OAUTHCLIENT_AUTH_METHOD (see [Secret]). It refuses, with a
// [ConfigError] naming the setting (every bad setting, joined by
// errors.Join, when there are several): no issuer and no token endpoint,
// no client ID or a blank one, no client authentication, an SVC_OAUTHCLIENT_AUTH_METHOD other
// than basic, post or auto or one the code's client authentication
// contradicts, a secret method without a secret, an
// unreadable secret or assertion file, a bad private key, a negative
// duration, and an issuer or token endpoint that is not an absolute https
// URL (http is allowed on loopback, or anywhere with [AllowInsecureHTTP]).
func New(opts ...Option) (*Client, error) {
	var cfg clientConfig
	useEnv := true
	for _, o := range opts {
		if _, ok := o.(envOff); ok {
			useEnv = false
		}
	}
	if useEnv {
		if err := loadClientEnv(&cfg); err != nil {
			return nil, err
		}
	}
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o.applyClient(&cfg); err != nil {
			return nil, err
		}
	}
	if err := cfg.finish(); err != nil {
		return nil, err
	}
	c := &Client{
		issuer:        cfg.issuer,
		clientID:      cfg.clientID,
		clientSecret:  cfg.clientSecret,
		secretFile:    cfg.clientSecretFile,
		assertionFile: cfg.assertionFile,
		timeout:       cfg.timeout,
		refreshBefore: cfg.refreshBefore,
		retryInterval: cfg.retryInterval,
		auth:          cfg.auth,
		http:          cfg.httpClient,
		clock:         cfg.clock,
		logger:        cfg.logger,
		allowHTTP:     cfg.allowHTTP,
		jitter:        cfg.jitter,
		dpop:          cfg.dpopKey,
		bulkhead:      cfg.bulkhead,
	}
	if cfg.maxFetches > 0 {
		c.fetchTurns = make(chan struct{}, cfg.maxFetches)
	}
	_, c.sysClock = c.clock.(systemClock)
	c.epoch = c.clock.Now()
	if _, ok := cfg.auth.(tlsAuth); ok {
		c.cert = &clientCert{certFile: cfg.tlsCertFile, keyFile: cfg.tlsKeyFile}
		c.tokenCerts.base = httpTransport(c.http.Transport) // tlsAuth.check saw that it is one
	}
	if cfg.tokenEndpoint != "" {
		c.meta.Store(&metadata{tokenEndpoint: cfg.tokenEndpoint})
	}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	return c, nil
}

// finish applies defaults and checks the settings. It reports every bad
// setting, not the first: with the identity half set, a missing issuer
// must not hide an unreadable assertion file or a blank client ID.
func (cfg *clientConfig) finish() error {
	var errs []error
	if cfg.issuer == "" && cfg.tokenEndpoint == "" {
		errs = append(errs, &ConfigError{Setting: clientEnvPrefix + "ISSUER", Problem: "set the issuer (or " + clientEnvPrefix + "TOKEN_ENDPOINT), or pass oauthclient.Issuer or oauthclient.TokenEndpoint"})
	}
	if cfg.issuer != "" {
		errs = append(errs, checkURL(cfg.issuer, clientEnvPrefix+"ISSUER", cfg.allowHTTP))
	}
	if cfg.tokenEndpoint != "" {
		errs = append(errs, checkURL(cfg.tokenEndpoint, clientEnvPrefix+"TOKEN_ENDPOINT", cfg.allowHTTP))
	}
	errs = append(errs, checkClientID(cfg.clientID))
	for _, d := range []struct {
		v    *time.Duration
		def  time.Duration
		name string
	}{
		{&cfg.timeout, defaultTimeout, "TIMEOUT"},
		{&cfg.refreshBefore, defaultRefreshBefore, "REFRESH_BEFORE"},
		{&cfg.retryInterval, defaultRetryInterval, "RETRY_INTERVAL"},
	} {
		if *d.v < 0 {
			errs = append(errs, &ConfigError{Setting: clientEnvPrefix + d.name, Problem: "must not be negative"})
		}
		if *d.v == 0 {
			*d.v = d.def
		}
	}
	for _, n := range []struct {
		v    int
		name string
	}{{cfg.bulkhead, "BULKHEAD"}, {cfg.maxFetches, "FETCH"}} {
		if n.v < 0 {
			errs = append(errs, &ConfigError{Setting: clientEnvPrefix + n.name, Problem: "must not be negative"})
		}
	}
	errs = append(errs, cfg.finishAuth())
	if cfg.dpop {
		var err error
		cfg.dpopKey, err = newDPoPKey(cfg.dpopSigner)
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		if j := err.(interface{ Unwrap() []error }).Unwrap(); len(j) == 1 {
			return j[0] // one fault stays a plain *ConfigError
		}
		return err
	}
	if cfg.httpClient == nil {
		cfg.httpClient = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	} else {
		hc := *cfg.httpClient
		cfg.httpClient = &hc
	}
	// A redirected token request could carry credentials to another
	// place; the answer is taken as it is instead.
	cfg.httpClient.CheckRedirect = answerRedirectAsFailure
	if cfg.clock == nil {
		cfg.clock = systemClock{}
	}
	if cfg.logger == nil {
		cfg.logger = zap.NewNop()
	}
	if cfg.jitter == nil {
		cfg.jitter = randomJitter
	}
	return nil
}

// finishAuth settles how the client authenticates and checks it (a
// secret or assertion file must be readable).
func (cfg *clientConfig) finishAuth() error {
	if err := cfg.applyEnvMethod(); err != nil {
		return err
	}
	certFiles := cfg.tlsCertFile != "" || cfg.tlsKeyFile != ""
	if cfg.auth == nil {
		switch {
		case cfg.assertionFile != "":
			cfg.auth = AssertionFile("")
		case cfg.clientSecret != "" || cfg.clientSecretFile != "":
			cfg.auth = Secret(Auto)
		case certFiles:
			cfg.auth = TLSClientAuth("", "")
		default:
			return &ConfigError{
				Setting: clientEnvPrefix + "CLIENT_SECRET",
				Problem: "no client authentication: set it, " + clientEnvPrefix + "CLIENT_SECRET_FILE, " + clientEnvPrefix + "ASSERTION_FILE or " + clientEnvPrefix + "TLS_CERT_FILE, or pass oauthclient.Secret, oauthclient.PrivateKey, oauthclient.AssertionFile or oauthclient.TLSClientAuth",
			}
		}
	}
	if _, ok := cfg.auth.(tlsAuth); certFiles && !ok {
		// A certificate that would silently go unused is refused: the
		// operator set it for a reason.
		return &ConfigError{
			Setting: clientEnvPrefix + "TLS_CERT_FILE",
			Problem: "is set but the client authenticates with " + cfg.auth.method(nil) + ": set " + clientEnvPrefix + "AUTH_METHOD=" + methodTLS + " (or pass oauthclient.TLSClientAuth), or unset it and " + clientEnvPrefix + "TLS_KEY_FILE",
		}
	}
	return cfg.auth.check(cfg)
}

// checkClientID refuses a missing client ID, and one a server would never
// match: blank, or with spaces around it (a quoting slip in a manifest).
func checkClientID(id string) error {
	setting := clientEnvPrefix + "CLIENT_ID"
	switch {
	case id == "":
		return &ConfigError{Setting: setting, Problem: "set the client ID, or pass oauthclient.ClientID"}
	case strings.TrimSpace(id) == "":
		return &ConfigError{Setting: setting, Problem: "is blank: set the client ID, or pass oauthclient.ClientID"}
	case strings.TrimSpace(id) != id:
		return &ConfigError{Setting: setting, Problem: "has leading or trailing spaces"}
	}
	return nil
}

// applyEnvMethod lets SVC_OAUTHCLIENT_AUTH_METHOD choose how the secret is
// sent. It is a deployment setting: it fills in what code left open
// (no client authentication, or Secret(Auto)), and a code choice that says
// otherwise is an error rather than a silent override either way.
func (cfg *clientConfig) applyEnvMethod() error {
	setting := clientEnvPrefix + "AUTH_METHOD"
	if cfg.envTLS != "" {
		switch a := cfg.auth.(type) {
		case nil:
			cfg.auth = tlsAuth{name: cfg.envTLS}
		case tlsAuth:
			// The code chose the certificate; the environment says which
			// registration it is checked against.
			a.name = cfg.envTLS
			cfg.auth = a
		default:
			return &ConfigError{Setting: setting, Problem: "is " + cfg.envTLS + " but the code authenticates with " + a.method(nil) + ": unset it"}
		}
		return nil
	}
	if !cfg.envMethodSet {
		return nil
	}
	switch a := cfg.auth.(type) {
	case nil:
		if cfg.assertionFile != "" && cfg.clientSecret == "" && cfg.clientSecretFile == "" {
			return &ConfigError{Setting: setting, Problem: "chooses how a client secret is sent, but " + clientEnvPrefix + "ASSERTION_FILE is set and no secret is: unset one of them"}
		}
		cfg.auth = secretAuth{m: cfg.envMethod}
	case secretAuth:
		switch {
		case a.m == Auto:
			cfg.auth = secretAuth{m: cfg.envMethod}
		case a.m != cfg.envMethod:
			return &ConfigError{Setting: setting, Problem: "is " + cfg.envMethod.String() + " but the code passes " + a.m.goName() +
				": remove one, or pass oauthclient.Secret(oauthclient.Auto) to let the environment choose"}
		}
	default:
		return &ConfigError{Setting: setting, Problem: "chooses how a client secret is sent, but the code authenticates with " + a.method(nil) + ": unset it"}
	}
	return nil
}

func randomJitter(max time.Duration) time.Duration {
	if max <= 0 {
		return 0
	}
	return rand.N(max + 1)
}

// checkURL accepts an absolute https URL, or http on loopback (or anywhere
// when allowed). Its error never repeats the URL, which may hold
// credentials.
func checkURL(raw, setting string, allowHTTP bool) error {
	u, problem := urlshape.Parse(raw)
	switch {
	case problem != "":
		return &ConfigError{Setting: setting, Problem: problem}
	case u.Fragment != "" || strings.Contains(raw, "#"):
		return &ConfigError{Setting: setting, Problem: "has a fragment"}
	}
	switch u.Scheme {
	case "https":
		return nil
	case "http":
		if allowHTTP || urlshape.Loopback(u.Hostname()) {
			return nil
		}
		return &ConfigError{Setting: setting, Problem: "plain http is allowed only on loopback; use https or oauthclient.AllowInsecureHTTP"}
	}
	return &ConfigError{Setting: setting, Problem: "the scheme must be https"}
}

// Name identifies the client in lifecycle errors: "oauthclient".
func (c *Client) Name() string { return "oauthclient" }

// ClientID is the client ID the client authenticates as: the audience of
// a signed introspection answer (RFC 9701), which authn checks.
func (c *Client) ClientID() string { return c.clientID }

// MarshalLogObject describes the client for a log line (zap.Object): its
// issuer, unless only a token endpoint was given; its token endpoint, the
// configured one or the discovered one once discovery succeeded; and its
// client ID. User information and queries in the URLs are masked, and no
// secret, key or assertion is ever written.
func (c *Client) MarshalLogObject(enc zapcore.ObjectEncoder) error {
	if c.issuer != "" {
		enc.AddString("issuer", secret.URL(c.issuer).String())
	}
	if m := c.meta.Load(); m != nil && m.tokenEndpoint != "" {
		enc.AddString("token_endpoint", secret.URL(m.tokenEndpoint).String())
	}
	enc.AddString("client_id", c.clientID)
	return nil
}

// Open reads the authorization server's metadata when an issuer is set and
// no token endpoint was given. It fails with a [DiscoveryError] when the
// answer will not improve by waiting (no metadata at the issuer, metadata
// for another issuer, no token endpoint). A server that is unreachable,
// slow or failing does not fail Open: the failure is remembered for the
// retry interval and the first fetch after it runs discovery again, so the
// service starts while its authorization server is down.
func (c *Client) Open(ctx context.Context) error {
	if c.meta.Load() != nil {
		return nil
	}
	_, err := c.metadata(ctx, time.Time{})
	var ue *UnavailableError
	if errors.As(err, &ue) {
		c.logger.Warn("svc.oauthclient discovery failed; retrying at the first fetch", zap.String("error.type", errorType(err)))
		return nil
	}
	return err
}

// Close cancels every fetch in flight, waits for the client's goroutines
// to stop (bounded by ctx) and releases idle connections. Later calls fail
// with [ErrClosed]. Close is idempotent.
func (c *Client) Close(ctx context.Context) error {
	c.mu.Lock()
	c.closed = true
	c.closedFlag.Store(true)
	c.mu.Unlock()
	c.cancel()
	done := make(chan struct{})
	go func() { c.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		return ctx.Err()
	}
	c.http.CloseIdleConnections()
	c.tokenCerts.closeIdle()
	c.bound.closeIdle()
	return nil
}

// elapsed is the time since the client's epoch. With the system clock it
// reads only the monotonic clock (time.Since), a third of the cost of
// time.Now on the cache-hit path.
func (c *Client) elapsed() time.Duration {
	if c.sysClock {
		return time.Since(c.epoch)
	}
	return c.clock.Now().Sub(c.epoch)
}

// goOwned runs f on a goroutine the client owns and waits for in Close. It
// reports false once the client is closed.
func (c *Client) goOwned(f func(ctx context.Context)) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return false
	}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		f(c.ctx)
	}()
	return true
}

// answerRedirectAsFailure is the client's CheckRedirect: the redirect
// response itself is returned, and read as the server's answer.
func answerRedirectAsFailure(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
