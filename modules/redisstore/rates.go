package redisstore

import (
	"context"
	"errors"
	"math"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/svckit/svc/modules/store"
)

// Both scripts spend one request of a GCRA budget in one round trip, on
// the server's clock (replicas with skewed clocks agree: it is the clock
// of the key's expiry, so no script reads TIME), and answer one integer,
// because every redis.call, reply element and parsed element is a
// measurable share of a loopback round trip: allowed, the time until the
// whole burst is back (at least one interval, so positive); refused, minus
// the wait until a request would fit (negative). The rest of RateResult
// follows from it and the Rate. KEYS[1] is the budget, ARGV[1] the
// interval and ARGV[2] the burst.
//
// gcraMillis keeps the theoretical arrival time (tat) as the key's own
// expiry: PTTL reads tat - now, PEXPIRE writes it (SET … PX for a new key;
// PEXPIRE costs Redis less), and the key vanishes once the whole burst is
// back. Two commands and no clock read, but Redis keeps expiries in whole
// milliseconds, so it serves intervals that are whole milliseconds (10/s,
// 1000/s, 6/min) and, rounded up, those of at least roundAbove (3/s).
// Units: milliseconds.
var gcraMillis = redis.NewScript(`
local interval = tonumber(ARGV[1])
local ttl = redis.call('PTTL', KEYS[1])
local tat = math.max(ttl, 0) + interval
local early = tat - interval * ARGV[2]
if early > 0 then return -early end
if ttl > 0 then
  redis.call('PEXPIRE', KEYS[1], tat)
else
  redis.call('SET', KEYS[1], '', 'PX', tat)
end
return tat
`)

// gcraMicros serves every other interval (30/s, 5000/s) the same way,
// with the part of tat below a millisecond kept in the key's value, in
// microseconds from -999 to 0: tat - now = PTTL·1000 + value. The clock is
// still Redis's expiry clock, whole milliseconds, so a request is judged
// as if it came at the start of its millisecond; the sub-millisecond parts
// add up exactly, so the long-run rate is the declared one. Three
// commands, no clock read. Units: microseconds.
var gcraMicros = redis.NewScript(`
local interval = tonumber(ARGV[1])
local rest = tonumber(redis.call('GET', KEYS[1]))
if not rest then rest = 0 end
local tat = math.max(redis.call('PTTL', KEYS[1]) * 1000 + rest, 0) + interval
local early = tat - interval * ARGV[2]
if early > 0 then return -early end
local px = math.ceil(tat / 1000)
redis.call('SET', KEYS[1], tat - px * 1000, 'PX', px)
return tat
`)

// rateKind names the rate-limit keys. Keys of an earlier svc ("rate", the
// absolute tat in the value) are never read: during a rolling upgrade the
// two versions keep apart budgets (at worst twice the limit, never none),
// and the old keys expire by themselves.
const rateKind = "gcra"

// errInvalidRate is the error store.Memory gives too.
var errInvalidRate = errors.New("redisstore: a Rate needs a positive Interval and a Burst of at least 1")

// roundAbove is the interval from which a budget is kept in whole
// milliseconds even when the interval is not one: rounding it up makes the
// limit at most 1 % stricter. A variable for the tests (never set while
// requests run).
var roundAbove = 100 * time.Millisecond

type rates struct{ c *Client }

// Rates returns the rate-limit store: GCRA in one Lua script (EVALSHA,
// reloaded with EVAL after a Redis restart emptied the script cache). It
// fails open: while Redis does not answer within Timeout every request is
// allowed (RateResult{Allowed: true, Unchecked: true} with nil error), a warning is logged
// at most once a minute, svc.redis.errors counts each failed operation and
// svc.redis.fail_open each request let through unchecked.
//
// A budget is kept in whole milliseconds (two commands in the script) when
// its interval is a whole number of milliseconds or at least roundAbove,
// rounded up (3/s admits one request per 334 ms: at most 1 % stricter,
// never looser), else in microseconds (three commands: the part below a
// millisecond is kept in the key's value). Both keep the key's expiry at the theoretical
// arrival time, so a limit whose rate changes between deploys carries its
// spent budget over.
func (c *Client) Rates() store.Rates { return rates{c} }

func (s rates) Allow(ctx context.Context, k store.Key, r store.Rate) (store.RateResult, error) {
	if r.Interval <= 0 || r.Burst < 1 {
		return store.RateResult{}, errInvalidRate
	}
	script, unit := gcraMicros, time.Microsecond
	interval, burst := max(1, r.Interval.Microseconds()), int64(r.Burst)
	if r.Interval%time.Millisecond == 0 || r.Interval >= roundAbove {
		// Rounded up: a limit may come out stricter, never looser.
		script, unit = gcraMillis, time.Millisecond
		interval = int64((r.Interval + time.Millisecond - 1) / time.Millisecond)
	}
	var n int64
	err := s.c.do(ctx, "ratelimit", func(ctx context.Context) error {
		var err error
		n, err = script.Run(ctx, s.c.rdb, []string{s.c.key(rateKind, k)}, interval, burst).Int64()
		return err
	})
	if err == nil && n == 0 {
		err = &Unavailable{Op: "ratelimit", Err: errShape}
	}
	if err != nil {
		s.c.failOpen.admit(ctx, "ratelimit", err)
		return store.RateResult{Allowed: true, Unchecked: true}, nil
	}
	s.c.failOpen.ok()
	window := interval * burst
	if burst > math.MaxInt64/interval {
		window = math.MaxInt64 // a burst no window of int64 holds: never exhausted
	}
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
