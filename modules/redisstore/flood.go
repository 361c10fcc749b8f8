package redisstore

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/svckit/svc/modules/store"
)

// floodStore is the store.Flood of [Client.Flood]. Each Allow is one round trip: a GCRA step in one Lua script on Redis's
// clock, with the key expiring when the budget is full again. The gate
// asks only on paths that are refused or find no route (see
// authn.Flood), never on an admitted request to a real route, so the
// round trip costs nothing on the hot path.
//
// While Redis cannot be reached, flood limits fail open: Allow lets the
// request through within Timeout, a warning is logged at most once a
// minute with the count of the ones held back, and the counter
// svc.redis.fail_open grows. The next call after Redis returns uses it
// again; after a restart the script is loaded again by itself (EVALSHA
// falls back to EVAL).
type floodStore struct {
	link
	prefix string
}

// newFlood returns a flood store on client whose keys start with prefix
// (the service's SVC_REDIS_PREFIX). A timeout that is not positive keeps
// its default.
func newFlood(client redis.UniversalClient, prefix string, opts ...linkOption) *floodStore {
	return &floodStore{link: newLink("flood", client, opts), prefix: prefix + "flood:"}
}

// floodScript is one GCRA step. KEYS: the address's key. ARGV: emission
// interval µs, burst. It answers {allowed, retry after µs}. The key holds
// the theoretical arrival time and expires when it is past.
var floodScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local interval = tonumber(ARGV[1])
local tolerance = interval * tonumber(ARGV[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
if tat < now then tat = now end
local nxt = tat + interval
local at = nxt - tolerance
if at > now then
  return {0, math.ceil(at - now)}
end
redis.call('SET', KEYS[1], string.format('%d', nxt), 'PX', math.ceil((nxt - now) / 1000))
return {1, 0}
`)

// Allow implements store.Flood with one round trip, bounded by the
// store's timeout (ctx may only shorten it).
func (f *floodStore) Allow(ctx context.Context, addr string, _ time.Time, r store.FloodRule) (time.Duration, bool, error) {
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	interval := int64(math.Ceil(1e6 / r.Rate))
	start := time.Now()
	res, err := floodScript.Run(ctx, f.client, []string{f.prefix + addr}, interval, r.Burst).Int64Slice()
	f.record(ctx, "flood.allow", time.Since(start), err)
	if err != nil {
		err = fmt.Errorf("redisstore: spend a flood budget in Redis (SVC_REDIS_URL): %w", err)
		f.report.admit(ctx, "flood.allow", err)
		return 0, false, err
	}
	f.report.ok()
	if len(res) != 2 || res[0] == 1 {
		return 0, true, nil
	}
	return time.Duration(res[1]) * time.Microsecond, false, nil
}
