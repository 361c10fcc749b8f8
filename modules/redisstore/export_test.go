package redisstore

import (
	"time"

	"github.com/redis/go-redis/v9"
)

// RoundIntervalsAbove sets roundAbove for a test and restores it after.
func RoundIntervalsAbove(t interface{ Cleanup(func()) }, d time.Duration) {
	old := roundAbove
	roundAbove = d
	t.Cleanup(func() { roundAbove = old })
}

// The stores built on a bare go-redis client, for tests that need no
// Client: the options Client.Bans and Client.Flood set themselves.
var (
	NewBans     = newBans
	NewFlood    = newFlood
	LinkTimeout = linkTimeout
	LinkLogger  = linkLogger
)

// LinkOption configures NewBans and NewFlood.
type LinkOption = linkOption

// NewBansEvery is NewBans reading the whole ban set again every d (0:
// the default).
func NewBansEvery(client redis.UniversalClient, prefix string, d time.Duration, opts ...LinkOption) *Bans {
	b := newBans(client, prefix, opts...)
	if d > 0 {
		b.resyncEvery = d
	}
	return b
}
