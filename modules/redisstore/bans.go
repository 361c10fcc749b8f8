package redisstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/svckit/svc/modules/authn/bans"
)

// Defaults of a ban store.
const (
	defaultResyncEvery = 10 * time.Second
	defaultPingEvery   = time.Second
)

// defaultGateTimeout bounds a round trip of a store built without a
// timeout.
const defaultGateTimeout = 500 * time.Millisecond

// Bans is a bans.Store on Redis, shared by every replica that uses the
// same Redis and key prefix. Give it to the gate with
// bans.New(bans.WithStore(s)), or let fxredis.Redis hand it to fxsvc.Authn.
// Build it with [Client.Bans].
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
// Call Open to start the subscriber and Close to stop it (fxsvc does).
type Bans struct {
	link
	setKey      string
	failPrefix  string
	channel     string
	resyncEvery time.Duration
	pingEvery   time.Duration

	mu    sync.RWMutex
	local map[banKey]int64 // until, Unix milliseconds (Redis's clock)

	runMu  sync.Mutex
	cancel context.CancelFunc
	done   chan struct{}
	synced chan struct{} // closed at the first full read of the ban set
	once   sync.Once
}

type banKey struct{ name, addr string }

// newBans returns a ban store on client whose keys start with prefix
// (e.g. "billing:"; the service's SVC_REDIS_PREFIX). It does not contact
// Redis until Open. A timeout that is not positive keeps its default.
func newBans(client redis.UniversalClient, prefix string, opts ...linkOption) *Bans {
	return &Bans{
		link:        newLink("bans", client, opts),
		setKey:      prefix + "{bans}:active",
		failPrefix:  prefix + "{bans}:fails:",
		channel:     prefix + "bans:started",
		local:       map[banKey]int64{},
		synced:      make(chan struct{}),
		resyncEvery: defaultResyncEvery,
		pingEvery:   defaultPingEvery,
	}
}

// Name identifies the store in lifecycle errors.
func (b *Bans) Name() string { return "redisstore/bans" }

// Open starts the subscriber that keeps the local copy of the ban set
// current. It does not wait for Redis: an app starts while Redis is down,
// and bans fail open until it answers. Opening twice is refused.
func (b *Bans) Open(context.Context) error {
	b.runMu.Lock()
	defer b.runMu.Unlock()
	if b.done != nil {
		return errors.New("redisstore: bans store opened twice")
	}
	ctx, cancel := context.WithCancel(context.Background())
	b.cancel, b.done = cancel, make(chan struct{})
	go b.run(ctx, b.done)
	return nil
}

// Close stops the subscriber and waits for it, or for ctx.
func (b *Bans) Close(ctx context.Context) error {
	b.runMu.Lock()
	cancel, done := b.cancel, b.done
	b.runMu.Unlock()
	if cancel == nil {
		return nil
	}
	cancel()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("redisstore: bans subscriber did not stop: %w", ctx.Err())
	}
}

// Synced is closed once the local copy has been read from Redis in full
// for the first time (tests and readiness checks wait on it).
func (b *Bans) Synced() <-chan struct{} { return b.synced }

// Banned implements bans.Store from the local copy: no round trip.
func (b *Bans) Banned(name, addr string, _ time.Time) (time.Time, bool) {
	b.mu.RLock()
	until, ok := b.local[banKey{name, addr}]
	b.mu.RUnlock()
	if !ok {
		return time.Time{}, false
	}
	return time.UnixMilli(until), true
}

// Active implements bans.Store: the bans in force in the local copy.
func (b *Bans) Active(name string, now time.Time) int {
	ms := now.UnixMilli()
	b.mu.RLock()
	defer b.mu.RUnlock()
	n := 0
	for k, until := range b.local {
		if k.name == name && until > ms {
			n++
		}
	}
	return n
}

// failScript counts one failure and starts a ban at the threshold, in one
// round trip. KEYS: the failure counter, the ban set. ARGV: member,
// threshold, window ms, duration ms, channel. It answers {started,
// failures, until ms}.
var failScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local cur = redis.call('ZSCORE', KEYS[2], ARGV[1])
if cur and tonumber(cur) > now then
  return {0, 0, 0}
end
local n = redis.call('INCR', KEYS[1])
if n == 1 then
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
end
if n < tonumber(ARGV[2]) then
  return {0, n, 0}
end
redis.call('DEL', KEYS[1])
local u = now + tonumber(ARGV[4])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
redis.call('ZADD', KEYS[2], u, ARGV[1])
redis.call('PUBLISH', ARGV[5], string.format('%d', u) .. ' ' .. ARGV[1])
return {1, n, u}
`)

// member is how a ban is named in the ban set and on the channel: the
// address first, as it never holds a NUL, then the Bans' name.
func member(name, addr string) string { return addr + "\x00" + name }

// Fail implements bans.Store with one round trip, bounded by the store's
// timeout (ctx may only shorten it).
func (b *Bans) Fail(ctx context.Context, addr string, _ time.Time, r bans.Rule) (bans.Started, bool, error) {
	ctx, cancel := context.WithTimeout(ctx, b.timeout)
	defer cancel()
	m := member(r.Name, addr)
	start := time.Now()
	res, err := failScript.Run(ctx, b.client, []string{b.failPrefix + m, b.setKey},
		m, r.Threshold, r.Window.Milliseconds(), r.Duration.Milliseconds(), b.channel).Int64Slice()
	b.record(ctx, "bans.fail", time.Since(start), err)
	if err != nil {
		err = fmt.Errorf("redisstore: count a forged token in Redis (SVC_REDIS_URL): %w", err)
		b.report.admit(ctx, "bans.fail", err)
		return bans.Started{}, false, err
	}
	b.report.ok()
	if len(res) != 3 || res[0] != 1 {
		return bans.Started{}, false, nil
	}
	// This replica refuses the caller at once, before its own message
	// comes back.
	b.mu.Lock()
	b.local[banKey{r.Name, addr}] = res[2]
	b.mu.Unlock()
	return bans.Started{Addr: addr, Failures: int(res[1]), Duration: r.Duration, Until: time.UnixMilli(res[2])}, true, nil
}

// apply records one published ban.
func (b *Bans) apply(payload string) {
	sp := -1
	for i := 0; i < len(payload); i++ {
		if payload[i] == ' ' {
			sp = i
			break
		}
	}
	if sp < 0 {
		return
	}
	until, err := strconv.ParseInt(payload[:sp], 10, 64)
	if err != nil {
		return
	}
	k, ok := splitMember(payload[sp+1:])
	if !ok {
		return
	}
	b.mu.Lock()
	b.local[k] = until
	b.mu.Unlock()
}

func splitMember(m string) (banKey, bool) {
	for i := 0; i < len(m); i++ {
		if m[i] == 0 {
			return banKey{name: m[i+1:], addr: m[:i]}, true
		}
	}
	return banKey{}, false
}
