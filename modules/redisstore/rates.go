package redisstore

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/svckit/svc/modules/store"
)

// gcra spends one request of a GCRA budget in one round trip. The time is
// the server's (TIME), so that replicas with skewed clocks agree. The key
// holds the theoretical arrival time in microseconds and expires once the
// whole burst is available again; it is written with %.0f so that no
// server formats the 16-digit number with fewer digits.
//
// KEYS[1] the budget; ARGV[1] interval µs; ARGV[2] burst.
// Returns {allowed 0|1, remaining, retry_after µs, reset_after µs}.
var gcra = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local interval = tonumber(ARGV[1])
local tolerance = interval * tonumber(ARGV[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or now)
if tat < now then tat = now end
local newtat = tat + interval
if newtat - tolerance > now then
  return {0, 0, newtat - tolerance - now, tat - now}
end
local reset = newtat - now
redis.call('SET', KEYS[1], string.format('%.0f', newtat), 'PX', math.ceil(reset / 1000))
return {1, math.floor((now + tolerance - newtat) / interval), 0, reset}
`)

type rates struct{ c *Client }

// Rates returns the rate-limit store: GCRA in one Lua script (EVALSHA,
// reloaded with EVAL after a Redis restart emptied the script cache). It
// fails open: while Redis does not answer within Timeout every request is
// allowed (RateResult{Allowed: true} with nil error), a warning is logged
// at most once a minute and svc.redis.errors counts each failure.
func (c *Client) Rates() store.Rates { return rates{c} }

func (s rates) Allow(ctx context.Context, k store.Key, r store.Rate) (store.RateResult, error) {
	var res []int64
	err := s.c.do(ctx, "ratelimit", func(ctx context.Context) error {
		var err error
		res, err = gcra.Run(ctx, s.c.rdb, []string{s.c.key("rate", k)},
			max(1, r.Interval.Microseconds()), max(1, r.Burst)).Int64Slice()
		return err
	})
	if err == nil && len(res) != 4 {
		err = &Unavailable{Op: "ratelimit", Err: errShape}
	}
	if err != nil {
		s.c.failOpen.warn("redisstore: Redis did not answer a rate-limit check; requests are admitted unlimited until it does (fail open)", err)
		return store.RateResult{Allowed: true, Remaining: max(0, r.Burst-1)}, nil
	}
	return store.RateResult{
		Allowed:    res[0] == 1,
		Remaining:  int(res[1]),
		RetryAfter: time.Duration(res[2]) * time.Microsecond,
		ResetAfter: time.Duration(res[3]) * time.Microsecond,
	}, nil
}
