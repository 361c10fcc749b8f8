package redisstore

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// maxBackoff bounds the pause between attempts while Redis is down, and
// so how long after Redis returns the subscriber notices.
const maxBackoff = time.Second

// run owns the subscription until ctx ends. Each (re)subscription is
// confirmed by a subscribe message: that is the moment messages flow
// again, and the moment to read the whole ban set, as anything published
// while the subscriber was away is lost.
func (b *banStore) run(ctx context.Context, done chan<- struct{}) {
	defer close(done)
	backoff := 50 * time.Millisecond
	for ctx.Err() == nil {
		ps := b.client.Subscribe(ctx, b.channel)
		// A read in progress does not watch ctx; closing the
		// subscription ends it, so Close need not wait a ping period.
		stop := context.AfterFunc(ctx, func() { _ = ps.Close() })
		synced, err := b.receive(ctx, ps)
		stop()
		_ = ps.Close()
		if ctx.Err() != nil {
			return
		}
		b.report.warn("bans.subscribe", fmt.Errorf("redisstore: ban subscription to Redis (SVC_REDIS_URL) lost, the ban set is read again once it is back: %w", err))
		if !sleep(ctx, backoff) {
			return
		}
		backoff = min(2*backoff, maxBackoff)
		if synced {
			backoff = 50 * time.Millisecond
		}
	}
}

// receive handles one subscription until it fails: messages, the
// subscribe confirmations that trigger a resync, periodic resyncs, and
// pings that find a connection that died without a word.
// It reports whether it read the ban set at least once.
func (b *banStore) receive(ctx context.Context, ps *redis.PubSub) (synced bool, err error) {
	nextResync := time.Now().Add(b.resyncEvery)
	pinged := false
	for ctx.Err() == nil {
		msg, err := ps.ReceiveTimeout(ctx, b.pingEvery)
		if err != nil {
			var ne net.Error
			if !errors.As(err, &ne) || !ne.Timeout() {
				return synced, err
			}
			if pinged {
				return synced, fmt.Errorf("no answer to PING within %s", b.pingEvery)
			}
			if err := ps.Ping(ctx); err != nil {
				return synced, err
			}
			pinged = true
		} else {
			pinged = false
			switch m := msg.(type) {
			case *redis.Subscription:
				if m.Kind == "subscribe" {
					if err := b.resync(ctx); err != nil {
						return synced, err
					}
					synced = true
					nextResync = time.Now().Add(b.resyncEvery)
				}
			case *redis.Message:
				b.apply(m.Payload)
			}
		}
		if time.Now().After(nextResync) {
			if err := b.resync(ctx); err != nil {
				return synced, err
			}
			nextResync = time.Now().Add(b.resyncEvery)
		}
	}
	return synced, ctx.Err()
}

// resync replaces the local copy with the bans in force in Redis. Redis
// is the source of truth: a ban it no longer holds is dropped.
func (b *banStore) resync(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, b.timeout)
	defer cancel()
	start := time.Now()
	now, err := b.client.Time(ctx).Result()
	var zs []redis.Z
	if err == nil {
		zs, err = b.client.ZRangeByScoreWithScores(ctx, b.setKey, &redis.ZRangeBy{
			Min: "(" + strconv.FormatInt(now.UnixMilli(), 10), Max: "+inf",
		}).Result()
	}
	b.record(ctx, "bans.resync", time.Since(start), err)
	if err != nil {
		return err
	}
	fresh := make(map[banKey]int64, len(zs))
	for _, z := range zs {
		if m, ok := z.Member.(string); ok {
			if k, ok := splitMember(m); ok {
				fresh[k] = int64(z.Score)
			}
		}
	}
	b.mu.Lock()
	b.local = fresh
	b.mu.Unlock()
	b.report.ok()
	b.once.Do(func() { close(b.synced) })
	return nil
}

func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
