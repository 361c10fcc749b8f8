package redisstore

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/metric"
)

// Bans returns a ban store on this connection (see [Bans]): keys under
// the Config's Prefix, each round trip bounded by its Timeout, warnings to
// the client's logger, and every round trip measured in svc.redis.duration
// and svc.redis.errors under db.operation.name bans.fail or bans.resync.
// Open and Close it with the app (fxredis.Redis does). Each call returns a
// new store with its own subscriber: make one per app.
func (c *Client) Bans(opts ...BansOption) *Bans {
	base := []BansOption{bansTimeout(c.cfg.Timeout), bansLogger(c.log), bansRecorder(c.metrics.record), bansMeters(c.meterProvider)}
	return newBans(c.rdb, c.cfg.Prefix, append(base, opts...)...)
}

// Flood returns a flood store on this connection (see [Flood]): keys
// under the Config's Prefix, each round trip bounded by its Timeout,
// warnings to the client's logger, round trips measured under
// db.operation.name flood.allow.
func (c *Client) Flood() *Flood {
	return newFlood(c.rdb, c.cfg.Prefix, floodTimeout(c.cfg.Timeout), floodLogger(c.log), floodRecorder(c.metrics.record), floodMeters(c.meterProvider))
}

// recorder measures one round trip.
type recorder func(ctx context.Context, op string, d time.Duration, err error)

func noRecord(context.Context, string, time.Duration, error) {}

func bansRecorder(r recorder) BansOption   { return func(b *Bans) { b.record = r } }
func floodRecorder(r recorder) floodOption { return func(f *Flood) { f.record = r } }

// bansMeters and floodMeters count svc.redis.fail_open on the client's
// provider instead of the global one.
func bansMeters(m func() metric.MeterProvider) BansOption   { return func(b *Bans) { b.meters = m } }
func floodMeters(m func() metric.MeterProvider) floodOption { return func(f *Flood) { f.meters = m } }
