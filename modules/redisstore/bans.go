package redisstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/svckit/svc/modules/store"
)

// Defaults of a ban store.
const (
	defaultResyncEvery = 10 * time.Second
	defaultPingEvery   = time.Second
)

// defaultGateTimeout bounds a round trip of a store built without a
// timeout.
const defaultGateTimeout = 500 * time.Millisecond

// banStore is the store.Bans of [Client.Bans]: a local copy of the ban
// set, kept current by a subscriber goroutine that runs from the store's
// first use (Open, or any of its store.Bans methods) until Close, which
// the Client's Close calls.
type banStore struct {
	link
	setKey      string
	failPrefix  string
	channel     string
	resyncEvery time.Duration
	pingEvery   time.Duration

	mu    sync.RWMutex
	local map[banKey]int64 // until, Unix milliseconds (Redis's clock)

	runMu   sync.Mutex
	cancel  context.CancelFunc
	done    chan struct{}
	running atomic.Bool   // the subscriber was started
	closed  bool          // Close ran: nothing starts it again
	synced  chan struct{} // closed at the first full read of the ban set
	once    sync.Once
}

type banKey struct{ name, addr string }

// newBans returns a ban store on client whose keys start with prefix
// (e.g. "billing:"; the service's SVC_REDIS_PREFIX). It does not contact
// Redis until Open. A timeout that is not positive keeps its default.
func newBans(client redis.UniversalClient, prefix string, opts ...linkOption) *banStore {
	return &banStore{
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

// Open starts the subscriber that keeps the local copy of the ban set
// current. It does not wait for Redis: an app starts while Redis is down,
// and bans fail open until it answers. Opening twice, or after Close, is
// refused.
func (b *banStore) Open(context.Context) error {
	b.runMu.Lock()
	defer b.runMu.Unlock()
	if b.done != nil || b.closed {
		return errors.New("redisstore: bans store opened twice")
	}
	ctx, cancel := context.WithCancel(context.Background())
	b.cancel, b.done = cancel, make(chan struct{})
	go b.run(ctx, b.done)
	b.running.Store(true)
	return nil
}

// start opens the store on its first use; a store already running, or
// closed, is left as it is.
func (b *banStore) start() {
	if !b.running.Load() {
		_ = b.Open(context.Background())
	}
}

// Close stops the subscriber and waits for it, or for ctx.
func (b *banStore) Close(ctx context.Context) error {
	b.runMu.Lock()
	cancel, done := b.cancel, b.done
	b.closed = true
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

// Banned implements store.Bans from the local copy: no round trip.
func (b *banStore) Banned(name, addr string, _ time.Time) (time.Time, bool) {
	b.start()
	b.mu.RLock()
	until, ok := b.local[banKey{name, addr}]
	b.mu.RUnlock()
	if !ok {
		return time.Time{}, false
	}
	return time.UnixMilli(until), true
}

// Active implements store.Bans: the bans in force in the local copy.
func (b *banStore) Active(name string, now time.Time) int {
	b.start()
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

// Fail implements store.Bans with one round trip, bounded by the store's
// timeout (ctx may only shorten it).
func (b *banStore) Fail(ctx context.Context, addr string, _ time.Time, r store.BanRule) (store.Ban, bool, error) {
	b.start()
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
		return store.Ban{}, false, err
	}
	b.report.ok()
	if len(res) != 3 || res[0] != 1 {
		return store.Ban{}, false, nil
	}
	// This replica refuses the caller at once, before its own message
	// comes back.
	b.mu.Lock()
	b.local[banKey{r.Name, addr}] = res[2]
	b.mu.Unlock()
	return store.Ban{Addr: addr, Failures: int(res[1]), Duration: r.Duration, Until: time.UnixMilli(res[2])}, true, nil
}

// apply records one published ban.
func (b *banStore) apply(payload string) {
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
