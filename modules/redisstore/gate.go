package redisstore

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"
	"go.opentelemetry.io/otel/metric"
	"go.uber.org/zap"

	"github.com/svckit/svc/modules/authn/flood"
)

// Bans returns a ban store on this connection (see [Bans]): keys under
// the Config's Prefix, each round trip bounded by its Timeout, warnings to
// the client's logger, and every round trip measured in svc.redis.duration
// and svc.redis.errors under db.operation.name bans.fail or bans.resync.
// Open and Close it with the app (fxredis.Redis does). Each call returns a
// new store with its own subscriber: make one per app.
func (c *Client) Bans() *Bans {
	return newBans(c.rdb, c.cfg.Prefix, c.linkOf()...)
}

// Flood returns a flood.Store on this connection: one budget per address
// shared by every replica that uses the same Redis and key prefix. Give it
// to the gate with flood.New(flood.WithStore(s)), or let fxredis.Redis
// hand it to fxsvc.Authn. Keys go under the Config's Prefix, each round
// trip is bounded by its Timeout, warnings go to the client's logger, and
// round trips are measured under db.operation.name flood.allow.
func (c *Client) Flood() flood.Store {
	return newFlood(c.rdb, c.cfg.Prefix, c.linkOf()...)
}

// recorder measures one round trip.
type recorder func(ctx context.Context, op string, d time.Duration, err error)

func noRecord(context.Context, string, time.Duration, error) {}

// link is what both gate stores hold of their connection: the client, the
// bound on one round trip, where a failure is logged and measured, and
// the fail-open report.
type link struct {
	client  redis.UniversalClient
	timeout time.Duration
	logger  func() *zap.Logger
	record  recorder
	meters  func() metric.MeterProvider // svc.redis.fail_open's; nil: the global one
	report  *failOpen
}

// linkOption configures newBans and newFlood.
type linkOption func(*link)

// linkTimeout bounds each round trip (default 500 ms). No request waits
// longer on Redis.
func linkTimeout(d time.Duration) linkOption { return func(l *link) { l.timeout = d } }

// linkLogger sets where failures are logged (default zap.L() at the time
// of logging).
func linkLogger(lg *zap.Logger) linkOption {
	return func(l *link) {
		if lg != nil {
			l.logger = func() *zap.Logger { return lg }
		}
	}
}

func linkRecorder(r recorder) linkOption { return func(l *link) { l.record = r } }

// linkMeters counts svc.redis.fail_open on the client's provider instead
// of the global one.
func linkMeters(m func() metric.MeterProvider) linkOption { return func(l *link) { l.meters = m } }

// newLink applies opts over the defaults; the store named op ("bans")
// reports its fail-open under that name.
func newLink(op string, client redis.UniversalClient, opts []linkOption) link {
	l := link{client: client, logger: zap.L, record: noRecord}
	for _, o := range opts {
		o(&l)
	}
	if l.timeout <= 0 {
		l.timeout = defaultGateTimeout
	}
	logger := l.logger
	l.report = newFailOpen(op, func() *zap.Logger { return logger() }, l.meters)
	return l
}

// linkOf is the link of the stores on c.
func (c *Client) linkOf() []linkOption {
	return []linkOption{linkTimeout(c.cfg.Timeout), linkLogger(c.log), linkRecorder(c.metrics.record), linkMeters(c.meterProvider)}
}
