package redisstore

import (
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/svckit/svc/modules/store"
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

// Bans is the ban store Client.Bans returns, with its Open, Close and
// Synced (closed at the first full read of the ban set).
type Bans = banStore

// Synced starts s, a Client.Bans store, and returns its Synced.
func Synced(s store.Bans) <-chan struct{} {
	b := s.(*banStore)
	b.start()
	return b.synced
}

// Synced is closed once the local copy has been read from Redis in full
// for the first time.
func (b *banStore) Synced() <-chan struct{} { return b.synced }

// NewBansEvery is NewBans reading the whole ban set again every d (0:
// the default).
func NewBansEvery(client redis.UniversalClient, prefix string, d time.Duration, opts ...LinkOption) *Bans {
	b := newBans(client, prefix, opts...)
	if d > 0 {
		b.resyncEvery = d
	}
	return b
}

// Stopped reports whether s, a Client.Bans store, is closed and its
// subscriber (if it ran) has exited.
func Stopped(s store.Bans) bool {
	b := s.(*banStore)
	b.runMu.Lock()
	done, closed := b.done, b.closed
	b.runMu.Unlock()
	if done == nil {
		return closed
	}
	select {
	case <-done:
		return closed
	default:
		return false
	}
}
