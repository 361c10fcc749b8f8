package redisstore

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"
	"go.uber.org/zap"

	"github.com/svckit/svc/modules/store"
)

// Bans returns a store.Bans on Redis, shared by every replica that uses
// the same Redis and key prefix. Give it to the gate with
// bans.New(bans.Store(s)), or let fxredis.Redis hand it to
// fxsvc.Authn. Keys go under the Config's Prefix, each round trip is
// bounded by its Timeout, warnings go to the client's logger, and every
// round trip is measured in svc.redis.duration and svc.redis.errors under
// db.operation.name bans.fail or bans.resync. Each call returns a new store
// with its own subscriber: make one per app.
//
// Round trips: Banned makes none. It reads a local copy of the ban set,
// kept current by a subscriber goroutine: a ban started on any replica is
// published on a Redis channel and reaches every subscribed replica within
// milliseconds. Pub/sub is fire and forget, so the copy is read again in
// full (one ZRANGE) whenever the subscription is (re)established, and
// every 10 seconds. Staleness is therefore bounded: while the
// subscriber is connected, the publish latency; after an outage, the time
// until it reconnects (a ping a second, plus one dial); in any case 10 s.
// Fail makes one round trip (a Lua script: INCR with expiry, and on the
// threshold ZADD and PUBLISH), only on the refusal path of a forged
// token.
//
// Failures are counted in a fixed window that starts with an address's
// first failure (the in-memory store slides its window). Ban times are
// Redis's clock (TIME); replicas compare them with their own, so clock
// skew between hosts shortens or lengthens a ban by as much.
//
// While Redis cannot be reached, bans fail open: Fail starts nothing and
// returns an error within Timeout, Banned keeps answering from the copy it
// has (known bans are still enforced until they end), a warning is logged
// at most once a minute with the count of the ones held back, and the
// counter svc.redis.fail_open counts each forged token that went uncounted
// (db.operation.name bans.fail; a lost subscription is logged, not
// counted, as it lets no request through by itself). When Redis answers again the
// subscriber resubscribes and resyncs, without a restart. A Redis that
// restarts without persistence has forgotten its bans; the replicas then
// forget them too at the resync. Removing a member from the ban set (ZREM)
// lifts that ban on every replica within 10 seconds.
//
// The subscriber starts at the store's first use and stops when the
// client closes: the client owns it.
func (c *Client) Bans() store.Bans {
	b := newBans(c.rdb, c.cfg.Prefix, c.linkOf()...)
	c.mu.Lock()
	c.banStores = append(c.banStores, b)
	c.mu.Unlock()
	return b
}

// Flood returns a store.Flood on this connection: one budget per address
// shared by every replica that uses the same Redis and key prefix. Give it
// to the gate with flood.New(flood.Store(s)), or let fxredis.Redis
// hand it to fxsvc.Authn. Keys go under the Config's Prefix, each round
// trip is bounded by its Timeout, warnings go to the client's logger, and
// round trips are measured under db.operation.name flood.allow.
func (c *Client) Flood() store.Flood {
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
	l.report = newFailOpen(op, func() *zap.Logger { return logger() })
	return l
}

// linkOf is the link of the stores on c.
func (c *Client) linkOf() []linkOption {
	return []linkOption{linkTimeout(c.cfg.Timeout), linkLogger(c.log), linkRecorder(c.metrics.record)}
}
