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
//     most once a minute with the count of the ones it suppressed, and
//     svc.redis.errors counts every failure.
//   - Idempotency fails closed: Claim returns an [*Unavailable] error,
//     which the idempotency component answers 503 request-refused rather
//     than risk running a write twice.
//   - Cache bypasses: a failed Get is a miss and a failed Set stores
//     nothing.
//
// No operation waits longer than Config.Timeout, whatever the caller's
// context says.
package redisstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/caarlos0/env/v11"
	"github.com/redis/go-redis/v9"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"
	"go.uber.org/zap"

	"github.com/svckit/svc/secret"
)

// Defaults of [Config].
const (
	DefaultPrefix        = "svc:"
	DefaultTimeout       = 500 * time.Millisecond
	DefaultCacheMaxBytes = 1 << 20
)

// Config is the connection's settings, read from SVC_REDIS_* by [FromEnv].
type Config struct {
	// URL is redis://[user:password@]host:port[/db] or rediss:// for
	// TLS. It prints with its credentials as ***.
	URL secret.URL `env:"URL"`
	// Prefix starts every key, so that services sharing one Redis keep
	// apart (default "svc:").
	Prefix string `env:"PREFIX" envDefault:"svc:"`
	// PoolSize is the number of connections kept (0: go-redis's default,
	// 10 per CPU).
	PoolSize int `env:"POOL_SIZE"`
	// Timeout bounds every operation: dialing, reading, writing, waiting
	// for a pooled connection, and the whole round trip (default 500ms).
	Timeout time.Duration `env:"TIMEOUT" envDefault:"500ms"`
	// CacheMaxBytes bounds one cached response (default 1 MiB); a larger
	// one is not stored.
	CacheMaxBytes int `env:"CACHE_MAX_BYTES" envDefault:"1048576"`
}

// FromEnv reads the Config from SVC_REDIS_URL, SVC_REDIS_PREFIX,
// SVC_REDIS_POOL_SIZE, SVC_REDIS_TIMEOUT and SVC_REDIS_CACHE_MAX_BYTES.
// It refuses a value that does not parse, naming the variable (never
// repeating the URL, which may hold a password).
func FromEnv() (Config, error) {
	var c Config
	if err := env.ParseWithOptions(&c, env.Options{Prefix: "SVC_REDIS_"}); err != nil {
		var agg env.AggregateError
		if errors.As(err, &agg) {
			// Name each variable; env's messages may quote the value.
			var names []string
			for _, e := range agg.Errors {
				var pe env.ParseError
				if errors.As(e, &pe) {
					names = append(names, "SVC_REDIS_"+envName(pe.Name))
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
	}
	return strings.ToUpper(field)
}

func (c Config) validate() error {
	switch {
	case !c.URL.IsSet():
		return errors.New("redisstore: SVC_REDIS_URL is not set: give redis://host:port or rediss://host:port")
	case c.PoolSize < 0:
		return errors.New("redisstore: SVC_REDIS_POOL_SIZE must be 0 (default) or positive")
	case c.Timeout <= 0:
		return errors.New("redisstore: SVC_REDIS_TIMEOUT must be a positive duration such as 500ms")
	case c.CacheMaxBytes <= 0:
		return errors.New("redisstore: SVC_REDIS_CACHE_MAX_BYTES must be positive")
	}
	return nil
}

// Client is one connection pool to Redis and the stores on it. It is safe
// for concurrent use; Close releases it.
type Client struct {
	rdb      *redis.Client
	cfg      Config
	log      *zap.Logger
	metrics  *instruments
	meters   metric.MeterProvider
	failOpen *warner
}

// Option configures [Open].
type Option func(*Client)

// Logger sets where the rate-limited warnings of a failing Redis go
// (default zap.L()).
func Logger(l *zap.Logger) Option {
	return func(c *Client) {
		if l != nil {
			c.log = l
		}
	}
}

// MeterProvider sets where svc.redis.duration and svc.redis.errors go
// (default: the global provider when the client is built).
func MeterProvider(p metric.MeterProvider) Option {
	return func(c *Client) { c.meters = p }
}

// New builds a client from cfg without connecting (the pool dials on first
// use). It refuses an invalid Config and a URL go-redis cannot read (the
// error names SVC_REDIS_URL and shows it masked).
func New(cfg Config, opts ...Option) (*Client, error) {
	if cfg.Prefix == "" {
		cfg.Prefix = DefaultPrefix
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.CacheMaxBytes == 0 {
		cfg.CacheMaxBytes = DefaultCacheMaxBytes
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	ro, err := redis.ParseURL(cfg.URL.Value())
	if err != nil {
		// go-redis's message may quote the URL: leave it out.
		return nil, fmt.Errorf("redisstore: SVC_REDIS_URL %s is not a redis:// or rediss:// URL go-redis reads", cfg.URL)
	}
	ro.PoolSize = cfg.PoolSize
	ro.DialTimeout, ro.ReadTimeout, ro.WriteTimeout, ro.PoolTimeout = cfg.Timeout, cfg.Timeout, cfg.Timeout, cfg.Timeout
	// No retries: a retried script could spend a budget twice, and each
	// retry would stretch the wait past Timeout.
	ro.MaxRetries = -1
	// One dial per attempt: retried dials (5 by default) only add to the
	// wait of a request while Redis is down.
	ro.DialerRetries = 1
	ro.ContextTimeoutEnabled = true
	c := &Client{rdb: redis.NewClient(ro), cfg: cfg, log: zap.L()}
	for _, o := range opts {
		o(c)
	}
	if c.meters == nil {
		c.meters = otel.GetMeterProvider()
	}
	c.metrics = newInstruments(c.meters)
	c.failOpen = newWarner(c.log, time.Minute, time.Now)
	return c, nil
}

// Open is New followed by one PING, so that a wrong address or password
// fails the start naming SVC_REDIS_URL.
func Open(ctx context.Context, cfg Config, opts ...Option) (*Client, error) {
	c, err := New(cfg, opts...)
	if err != nil {
		return nil, err
	}
	if err := c.Ping(ctx); err != nil {
		_ = c.Close()
		return nil, fmt.Errorf("redisstore: SVC_REDIS_URL %s does not answer PING: %w", cfg.URL, err)
	}
	return c, nil
}

// Ping sends one PING, bounded by Timeout. It is the readiness check.
func (c *Client) Ping(ctx context.Context) error {
	return c.do(ctx, "ping", func(ctx context.Context) error { return c.rdb.Ping(ctx).Err() })
}

// Close closes the pool; the stores fail after it.
func (c *Client) Close() error { return c.rdb.Close() }

// Redis returns the go-redis client, for the app's own commands (prefix
// its keys with Key).
func (c *Client) Redis() *redis.Client { return c.rdb }

// Timeout is the bound of one operation.
func (c *Client) Timeout() time.Duration { return c.cfg.Timeout }

// Unavailable is the error of a store operation Redis did not answer. It
// matches store.ErrUnavailable and svcerrors.AdmissionRefused with
// errors.Is/As, so that a component refuses the request 503
// request-refused. Its message names the operation, never a key or value.
type Unavailable struct {
	Op  string
	Err error
}

func (e *Unavailable) Error() string {
	return "redisstore: " + e.Op + ": Redis did not answer: " + e.Err.Error()
}

// Unwrap exposes the cause, store.ErrUnavailable and the admission refusal.
func (e *Unavailable) Unwrap() []error { return []error{e.Err, errUnavailable, refused} }

// do runs one round trip under Timeout and records its duration and
// failure under op. It returns redis.Nil as is and wraps any other error
// in *Unavailable.
func (c *Client) do(ctx context.Context, op string, fn func(context.Context) error) error {
	start := time.Now()
	if d, ok := ctx.Deadline(); !ok || d.Sub(start) > c.cfg.Timeout {
		ctx = bounded{Context: ctx, deadline: start.Add(c.cfg.Timeout)}
	}
	err := fn(ctx)
	if errors.Is(err, redis.Nil) {
		// A missing key is an answer, not a failure.
		c.metrics.record(ctx, op, time.Since(start), nil)
		return err
	}
	c.metrics.record(ctx, op, time.Since(start), err)
	if err != nil {
		return &Unavailable{Op: op, Err: err}
	}
	return nil
}

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
