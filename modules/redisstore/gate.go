package redisstore

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/metric"

	"github.com/svckit/svc/modules/authn/flood"
)

// Bans returns a ban store on this connection (see [Bans]): keys under
// the Config's Prefix, each round trip bounded by its Timeout, warnings to
// the client's logger, and every round trip measured in svc.redis.duration
// and svc.redis.errors under db.operation.name bans.fail or bans.resync.
// Open and Close it with the app (fxredis.Redis does). Each call returns a
// new store with its own subscriber: make one per app.
func (c *Client) Bans() *Bans {
	return newBans(c.rdb, c.cfg.Prefix, bansTimeout(c.cfg.Timeout), bansLogger(c.log), bansRecorder(c.metrics.record), bansMeters(c.meterProvider))
}

// Flood returns a flood.Store on this connection: one budget per address
// shared by every replica that uses the same Redis and key prefix. Give it
// to the gate with flood.New(flood.WithStore(s)), or let fxredis.Redis
// hand it to fxsvc.Authn. Keys go under the Config's Prefix, each round
// trip is bounded by its Timeout, warnings go to the client's logger, and
// round trips are measured under db.operation.name flood.allow.
func (c *Client) Flood() flood.Store {
	return newFlood(c.rdb, c.cfg.Prefix, floodTimeout(c.cfg.Timeout), floodLogger(c.log), floodRecorder(c.metrics.record), floodMeters(c.meterProvider))
}

// recorder measures one round trip.
type recorder func(ctx context.Context, op string, d time.Duration, err error)

func noRecord(context.Context, string, time.Duration, error) {}

func bansRecorder(r recorder) bansOption   { return func(b *Bans) { b.record = r } }
func floodRecorder(r recorder) floodOption { return func(f *floodStore) { f.record = r } }

// bansMeters and floodMeters count svc.redis.fail_open on the client's
// provider instead of the global one.
func bansMeters(m func() metric.MeterProvider) bansOption { return func(b *Bans) { b.meters = m } }
func floodMeters(m func() metric.MeterProvider) floodOption {
	return func(f *floodStore) { f.meters = m }
}
