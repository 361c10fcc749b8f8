package redisstore

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/svckit/svc/modules/store"
)

// Both scripts spend one request of a GCRA budget in one round trip, on
// the server's clock (replicas with skewed clocks agree), and answer one
// integer, because every redis.call, reply element and parsed element is a
// measurable share of a loopback round trip: allowed, the time until the
// whole burst is back (at least one interval, so positive); refused, minus
// the wait until a request would fit (negative). The rest of RateResult
// follows from it and the Rate. KEYS[1] is the budget, ARGV[1] the
// interval and ARGV[2] the burst.
//
// gcraMillis keeps the theoretical arrival time (tat) as the key's own
// expiry: PTTL reads tat - now, SET … PX writes it, and the key vanishes
// once the whole burst is back. Two commands and no clock read, but Redis
// keeps expiries in whole milliseconds, so it serves intervals that are
// whole milliseconds (10/s, 1000/s, 6/min) and, rounded up, those of at
// least roundAbove (3/s). Units: milliseconds.
var gcraMillis = redis.NewScript(`
local interval = tonumber(ARGV[1])
local tat = math.max(redis.call('PTTL', KEYS[1]), 0) + interval
local early = tat - interval * ARGV[2]
if early > 0 then return -early end
redis.call('SET', KEYS[1], '', 'PX', tat)
return tat
`)

// gcraMicros serves every other interval: the key holds tat in
// microseconds since the epoch, read against TIME, written with %.0f so
// that no server formats the 16-digit number with fewer digits, and
// expiring once the whole burst is back. A key gcraMillis wrote holds no
// number; its expiry is read instead. Units: microseconds.
var gcraMicros = redis.NewScript(`
local t = redis.call('TIME')
local now = t[1] * 1000000 + t[2]
local interval = tonumber(ARGV[1])
local tat = tonumber(redis.call('GET', KEYS[1]))
if not tat then tat = now + math.max(redis.call('PTTL', KEYS[1]), 0) * 1000 end
tat = math.max(tat, now) + interval
local early = tat - interval * ARGV[2] - now
if early > 0 then return -early end
redis.call('SET', KEYS[1], string.format('%.0f', tat), 'PX', math.ceil((tat - now) / 1000))
return tat - now
`)

// roundAbove is the interval from which a budget is kept in whole
// milliseconds even when the interval is not one: rounding it up makes the
// limit at most 1 % stricter. A variable for the tests (never set while requests run).
var roundAbove = 100 * time.Millisecond

type rates struct{ c *Client }

// Rates returns the rate-limit store: GCRA in one Lua script (EVALSHA,
// reloaded with EVAL after a Redis restart emptied the script cache). It
// fails open: while Redis does not answer within Timeout every request is
// allowed (RateResult{Allowed: true} with nil error), a warning is logged
// at most once a minute, svc.redis.errors counts each failed operation and
// svc.redis.fail_open each request let through unchecked.
//
// A budget is kept in whole milliseconds (two commands in the script) when
// its interval is a whole number of milliseconds or at least roundAbove,
// rounded up (3/s admits one request per 334 ms: at most 1 % stricter,
// never looser), else in microseconds (three commands). Both keep the key's expiry at the theoretical
// arrival time, so a limit whose rate changes between deploys carries its
// spent budget over.
func (c *Client) Rates() store.Rates { return rates{c} }

func (s rates) Allow(ctx context.Context, k store.Key, r store.Rate) (store.RateResult, error) {
	script, unit := gcraMicros, time.Microsecond
	interval, burst := max(1, r.Interval.Microseconds()), int64(max(1, r.Burst))
	if r.Interval%time.Millisecond == 0 || r.Interval >= roundAbove {
		// Rounded up: a limit may come out stricter, never looser.
		script, unit = gcraMillis, time.Millisecond
		interval = int64((r.Interval + time.Millisecond - 1) / time.Millisecond)
	}
	var n int64
	err := s.c.do(ctx, "ratelimit", func(ctx context.Context) error {
		var err error
		n, err = script.Run(ctx, s.c.rdb, []string{s.c.key("rate", k)}, interval, burst).Int64()
		return err
	})
	if err == nil && n == 0 {
		err = &Unavailable{Op: "ratelimit", Err: errShape}
	}
	if err != nil {
		s.c.failOpen.admit(ctx, "ratelimit", err)
		return store.RateResult{Allowed: true, Remaining: max(0, r.Burst-1)}, nil
	}
	window := interval * burst
	if n < 0 {
		return store.RateResult{
			RetryAfter: time.Duration(-n) * unit,
			ResetAfter: time.Duration(-n+window-interval) * unit,
		}, nil
	}
	return store.RateResult{
		Allowed:    true,
		Remaining:  int((window - n) / interval),
		ResetAfter: time.Duration(n) * unit,
	}, nil
}
