// Package redisstore keeps the shared state of the components behind the
// gate on Redis (7.x or Valkey), so that every replica of a service spends
// one rate-limit budget, sees one idempotency record and serves one cache:
// [Client.Rates], [Client.Idempotency] and [Client.Cache] implement the
// interfaces of package store, each operation one round trip (a Lua script
// where it must be atomic).
//
// Each store fails in its own way while Redis is unreachable, and recovers
// by itself when Redis returns (the pool reconnects; scripts are reloaded
// on NOSCRIPT):
//
//   - Rates fails open: the request is admitted, a warning is logged at
//     most once a minute with the count of the ones it held back, and
//     svc.redis.fail_open counts the request (as Bans and Flood do).
//   - Idempotency fails closed: Claim returns an error matching
//     store.ErrUnavailable, which the idempotency component answers 503
//     request-refused rather than risk running a write twice.
//   - Cache bypasses: a failed Get is a miss and a failed Set stores
//     nothing.
//   - DPoPReplay fails closed: a proof whose jti cannot be checked is
//     refused 503 by the DPoP verifier.
//   - Introspections falls back: a failed Get is a miss, and the verifier
//     introspects the token at the issuer's endpoint (never failing open).
//
// No request waits on Redis longer than Config.Timeout in all, whatever
// the caller's context says: the calls of one request (a ban check, a
// rate limit, an idempotency claim and its completion) share one budget,
// held in the request's facts, and a call with none of it left fails at
// once. A call made outside a request gets the whole Timeout.
//
// Two counters tell failures apart:
//
//   - svc.redis.errors ({error}, by db.operation.name): every operation
//     Redis did not answer (timeout, refused connection, error reply),
//     whatever the store did about it.
//   - svc.redis.fail_open ({request}, by svc.redis.store = ratelimit,
//     bans or flood, and db.operation.name): every request a fail-open
//     store let through without its check. A rate-limit check during an
//     outage adds one to both.
//
// Connections: redis:// or rediss:// (TLS, verified against the system
// roots, the PEM file of SVC_REDIS_TLS_CA_FILE, or Config.TLS), with a
// password or an ACL user in the URL; Redis 7 and Valkey 8; one server, a
// Sentinel set or a Cluster (Config.Mode, SVC_REDIS_MODE). Every script
// and multi-key command keeps its keys in one hash slot. go-redis's own
// log lines go to the client's logger, never to stderr (see New).
//
// Replication is asynchronous: a failover can lose the writes its primary
// had not sent on (a rate-limit step, an idempotency claim, a ban count),
// and while no primary answers each store fails as during an outage.
// svc.redis.redirections counts the MOVED and ASK a Cluster answered,
// svc.redis.failovers each new primary seen.
package redisstore

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/caarlos0/env/v11"
	"github.com/redis/go-redis/v9"
	"go.opentelemetry.io/otel"
	"go.uber.org/zap"

	"github.com/svckit/svc/internal/reqfacts"
	"github.com/svckit/svc/secret"
)

// Defaults of [Config].
const (
	defaultPrefix        = "svc:"
	defaultTimeout       = 500 * time.Millisecond
	defaultCacheMaxBytes = 1 << 20
)

// Config is the connection's settings, read from SVC_REDIS_* by [FromEnv].
type Config struct {
	// URL is redis://[user:password@]host:port[/db] or rediss:// for
	// TLS. It prints with its credentials as ***.
	URL secret.URL `env:"URL"`
	// Mode is how URL is read and which go-redis client serves every store:
	//
	//   - "single" (the default): one server,
	//     redis://[user:password@]host:port[/db] (go-redis's ParseURL).
	//   - "sentinel": a Sentinel set, go-redis's ParseFailoverURL:
	//     redis://[sentinel-user:sentinel-password@]sentinel:port[/db]?master_name=name&addr=sentinel2:port&password=…
	//     (the primary's own credentials go in username= and password=).
	//     The client follows the primary the sentinels name.
	//   - "cluster": a Redis Cluster, go-redis's ParseClusterURL:
	//     redis://[user:password@]node:port?addr=node2:port&addr=node3:port
	//     (a Cluster has database 0 only). The client follows MOVED and ASK.
	Mode string `env:"MODE" envDefault:"single"`
	// Prefix starts every key, so that services sharing one Redis keep
	// apart (default "svc:").
	Prefix string `env:"PREFIX" envDefault:"svc:"`
	// PoolSize is the number of connections kept (0: go-redis's default,
	// 10 per CPU).
	PoolSize int `env:"POOL_SIZE"`
	// Timeout bounds every operation: dialing, reading, writing, waiting
	// for a pooled connection, and the whole round trip (default 500ms).
	// A wait for a pooled connection and a dial get half of it each.
	Timeout time.Duration `env:"TIMEOUT" envDefault:"500ms"`
	// CacheMaxBytes bounds one cached response (default 1 MiB); a larger
	// one is not stored.
	CacheMaxBytes int `env:"CACHE_MAX_BYTES" envDefault:"1048576"`
	// TLSCAFile is a PEM file of the CAs that a rediss:// server's
	// certificate must chain to, read when the client is built (default:
	// the system roots). It is refused with a redis:// URL, where it would
	// be ignored.
	TLSCAFile string `env:"TLS_CA_FILE"`
	// TLS is the TLS configuration of a rediss:// connection, in code only
	// (e.g. a client certificate); its ServerName defaults to the URL's
	// host. TLSCAFile, when set, replaces its RootCAs; setting both
	// RootCAs and TLSCAFile is refused, as is TLS with a redis:// URL.
	TLS *tls.Config `env:"-"`
}

// envPrefix is the prefix of the variables FromEnv reads.
const envPrefix = "SVC_REDIS_"

// EnvVariables lists the environment variables [FromEnv] reads, so that a
// tool can tell a misspelt variable from a known one.
func EnvVariables() []string {
	params, err := env.GetFieldParamsWithOptions(&Config{}, env.Options{Prefix: envPrefix})
	if err != nil {
		return nil // only a malformed tag fails, which the tests would catch
	}
	names := make([]string, 0, len(params))
	for _, p := range params {
		names = append(names, p.Key)
	}
	return names
}

// FromEnv reads the Config from SVC_REDIS_URL, SVC_REDIS_MODE, SVC_REDIS_PREFIX,
// SVC_REDIS_POOL_SIZE, SVC_REDIS_TIMEOUT, SVC_REDIS_CACHE_MAX_BYTES and
// SVC_REDIS_TLS_CA_FILE.
// It refuses a value that does not parse, naming the variable (never
// repeating the URL, which may hold a password).
func FromEnv() (Config, error) {
	var c Config
	if err := env.ParseWithOptions(&c, env.Options{Prefix: envPrefix}); err != nil {
		var agg env.AggregateError
		if errors.As(err, &agg) {
			// Name each variable; env's messages may quote the value.
			var names []string
			for _, e := range agg.Errors {
				var pe env.ParseError
				if errors.As(e, &pe) {
					names = append(names, envPrefix+envName(pe.Name))
				}
			}
			if len(names) > 0 {
				return Config{}, fmt.Errorf("redisstore: %s: not a valid value", strings.Join(names, ", "))
			}
		}
		return Config{}, fmt.Errorf("redisstore: reading SVC_REDIS_*: %w", err)
	}
	return c, c.validate()
}

func envName(field string) string {
	switch field {
	case "PoolSize":
		return "POOL_SIZE"
	case "CacheMaxBytes":
		return "CACHE_MAX_BYTES"
	case "TLSCAFile":
		return "TLS_CA_FILE"
	}
	return strings.ToUpper(field)
}

func (c Config) validate() error {
	switch {
	case c.URL == "":
		return errors.New("redisstore: SVC_REDIS_URL is not set: give redis://host:port or rediss://host:port")
	case !validMode(c.Mode):
		return fmt.Errorf("redisstore: SVC_REDIS_MODE %q is not one of %s", c.Mode, modes)
	case c.PoolSize < 0:
		return errors.New("redisstore: SVC_REDIS_POOL_SIZE must be 0 (default) or positive")
	case c.Timeout <= 0:
		return errors.New("redisstore: SVC_REDIS_TIMEOUT must be a positive duration such as 500ms")
	case c.CacheMaxBytes <= 0:
		return errors.New("redisstore: SVC_REDIS_CACHE_MAX_BYTES must be positive")
	case !strings.HasPrefix(c.URL.Value(), "rediss://") && c.TLSCAFile != "":
		return errors.New("redisstore: SVC_REDIS_TLS_CA_FILE is set but SVC_REDIS_URL is not rediss://: use rediss:// for TLS, or unset SVC_REDIS_TLS_CA_FILE")
	case !strings.HasPrefix(c.URL.Value(), "rediss://") && c.TLS != nil:
		return errors.New("redisstore: Config.TLS is set but SVC_REDIS_URL is not rediss://: use rediss:// for TLS")
	case c.TLS != nil && c.TLS.RootCAs != nil && c.TLSCAFile != "":
		return errors.New("redisstore: both Config.TLS.RootCAs and SVC_REDIS_TLS_CA_FILE are set: give the CAs once")
	}
	return nil
}

// Client is one connection pool to Redis and the stores on it. It is safe
// for concurrent use; Close releases it.
type Client struct {
	rdb      redis.UniversalClient
	cfg      Config
	log      *zap.Logger
	metrics  *instruments
	failOpen *failOpen // the rate-limit store's
	idem     *failClosed
	dpop     *failClosed
	watch    *watch

	mu        sync.Mutex
	banStores []*banStore // their subscribers stop at Close
}

// Option configures [Open].
type Option func(*Client)

// Logger sets where the rate-limited warnings of a failing Redis go, and
// go-redis's own log lines while this is the most recent open client
// (default zap.L()).
func Logger(l *zap.Logger) Option {
	return func(c *Client) {
		if l != nil {
			c.log = l
		}
	}
}

// New builds a client from cfg without connecting (the pool dials on first
// use). It refuses an invalid Config, a URL go-redis cannot read (the
// error names SVC_REDIS_URL and shows it masked) and a TLSCAFile it cannot
// read or that holds no PEM certificate (naming SVC_REDIS_TLS_CA_FILE).
//
// The first New also routes go-redis's own log lines, which go-redis
// prints to stderr by default and keeps in one logger per process, to
// the Logger of the most recent client still open, rate-limited to one
// line a minute per kind, with its password masked (see redis.SetLogger:
// from then on this holds for every go-redis client of the process).
func New(cfg Config, opts ...Option) (*Client, error) {
	if cfg.Prefix == "" {
		cfg.Prefix = defaultPrefix
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = defaultTimeout
	}
	if cfg.CacheMaxBytes == 0 {
		cfg.CacheMaxBytes = defaultCacheMaxBytes
	}
	if cfg.Mode == "" {
		cfg.Mode = modeSingle
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	top, err := newTopology(cfg)
	if err != nil {
		return nil, err
	}
	c := &Client{cfg: cfg, log: zap.L()}
	for _, o := range opts {
		o(c)
	}
	// svc.redis.* go to the global meter provider, as every svc component's
	// metrics do (otelglobal): instruments made before fxsvc.Metrics installs
	// its bridge follow it once it does.
	c.metrics = newInstruments(otel.GetMeterProvider())
	c.failOpen = newFailOpen("ratelimit", func() *zap.Logger { return c.log })
	c.idem = newFailClosed("idempotency", "a request with an Idempotency-Key is refused 503 before its handler runs", func() *zap.Logger { return c.log })
	c.dpop = newFailClosed("dpop", "a DPoP proof is refused 503 rather than risk a replay", func() *zap.Logger { return c.log })
	routeGoRedisLogs(c, top.passwords...)
	c.rdb = top.rdb
	c.watch = newWatch(c)
	return c, nil
}

// Open is New followed by Check, so that a wrong address, password or
// CA fails the start naming SVC_REDIS_URL.
func Open(ctx context.Context, cfg Config, opts ...Option) (*Client, error) {
	c, err := New(cfg, opts...)
	if err != nil {
		return nil, err
	}
	if err := c.Check(ctx); err != nil {
		_ = c.Close()
		return nil, err
	}
	return c, nil
}

// ping sends one PING, bounded by Timeout (see Check).
func (c *Client) ping(ctx context.Context) error {
	return c.do(ctx, "ping", func(ctx context.Context) error {
		if cc, ok := c.rdb.(*redis.ClusterClient); ok {
			return c.checkCluster(ctx, cc)
		}
		if c.cfg.Mode == modeSingle {
			return c.pingSingle(ctx)
		}
		return c.rdb.Ping(ctx).Err()
	})
}

// Close stops the subscribers of the ban stores (waiting at most
// closeWait for each) and closes the pool; the stores fail after it.
// go-redis's log lines go to another open client's logger from then on, if
// there is one.
func (c *Client) Close() error {
	c.mu.Lock()
	stores := c.banStores
	c.mu.Unlock()
	var errs []error
	for _, b := range stores {
		ctx, cancel := context.WithTimeout(context.Background(), closeWait)
		errs = append(errs, b.Close(ctx))
		cancel()
	}
	goRedisLogs.detach(c)
	return errors.Join(append(errs, c.rdb.Close())...)
}

// closeWait bounds how long Close waits for a ban store's subscriber,
// which stops at once unless it is stuck in a dial.
const closeWait = 5 * time.Second

// Redis returns the go-redis client, for the app's own commands (prefix
// its keys with Config.Prefix): a *redis.Client for the single and sentinel modes,
// a *redis.ClusterClient for cluster.
func (c *Client) Redis() redis.UniversalClient { return c.rdb }

// unavailable is the error of a store operation Redis did not answer, or
// answered with an error reply (its message says which). It
// matches store.ErrUnavailable and svcerrors.AdmissionRefused with
// errors.Is/As, so that a component refuses the request 503
// request-refused. Its message names the operation, never a key or value.
type unavailable struct {
	Op  string
	Err error
}

func (e *unavailable) Error() string {
	var reply redis.Error
	if errors.As(e.Err, &reply) {
		// Redis answered, with an error reply: saying it did not answer
		// would send the operator after the network.
		return "redisstore: " + e.Op + ": Redis answered with an error: " + e.Err.Error()
	}
	return "redisstore: " + e.Op + ": Redis did not answer: " + e.Err.Error()
}

// Unwrap exposes the cause, store.ErrUnavailable and the admission refusal.
func (e *unavailable) Unwrap() []error { return []error{e.Err, errUnavailable, refused} }

// do runs one round trip under what is left of the request's Timeout
// (the whole Timeout for a call made outside a request) and records its
// duration and failure under op. It returns redis.Nil as is and wraps any
// other error in *unavailable.
func (c *Client) do(ctx context.Context, op string, fn func(context.Context) error) error {
	start := time.Now()
	limit := c.cfg.Timeout
	if waited, ok := reqfacts.StoreWait(ctx); ok {
		// One budget per request (SVC_REDIS_TIMEOUT), shared by its calls.
		if limit -= waited; limit <= 0 {
			c.metrics.unsent(ctx, op)
			return &unavailable{Op: op, Err: errWaitSpent}
		}
		defer func() { reqfacts.AddStoreWait(ctx, time.Since(start)) }()
	}
	if d, ok := ctx.Deadline(); !ok || d.Sub(start) > limit {
		ctx = bounded{Context: ctx, deadline: start.Add(limit)}
	}
	err := fn(ctx)
	if errors.Is(err, redis.Nil) {
		// A missing key is an answer, not a failure.
		c.metrics.record(ctx, op, time.Since(start), nil)
		return err
	}
	c.metrics.record(ctx, op, time.Since(start), err)
	if err != nil {
		return &unavailable{Op: op, Err: err}
	}
	return nil
}

// errWaitSpent is the failure of a call the request had no time left
// for: its earlier calls spent the Timeout.
var errWaitSpent = errors.New("the request already waited SVC_REDIS_TIMEOUT on Redis")

// bounded gives a context the deadline of one operation without the timer
// of context.WithDeadline (a measurable share of a loopback round trip).
// go-redis needs only the Deadline: it sets the socket deadlines and the
// dialer's from it, and bounds the wait for a pooled connection by
// PoolTimeout (= Timeout), after which the passed deadline fails the
// write at once. Done and Err stay the caller's.
type bounded struct {
	context.Context
	deadline time.Time
}

func (b bounded) Deadline() (time.Time, bool) { return b.deadline, true }
