package ratelimit

import (
	"strconv"
	"time"

	"github.com/svckit/svc/modules/store"
)

// maxHeaderTable bounds the RateLimit values built ahead of time per
// limit; limits with more (remaining, reset) pairs build theirs per
// response.
const maxHeaderTable = 4096

// headerTable holds a limit's RateLimit-Policy value and, for small limits,
// every RateLimit value it can send, so that an admitted request builds no
// string. Each value is a one-element slice with no spare capacity: a
// handler that appends to the header gets a copy, never a shared array.
type headerTable struct {
	name     string
	policy   []string
	maxReset int
	values   [][]string // [remaining*(maxReset+1)+reset]
}

// newHeaderTable builds the values of the structured-field headers of
// draft-ietf-httpapi-ratelimit-headers: RateLimit-Policy "name";q=quota;
// w=window seconds, and RateLimit "name";r=remaining;t=seconds.
//
// The draft's r never exceeds the policy's q, so the policy states the
// larger of the two budgets a GCRA limit has: Count per Period when the
// burst fits in it ("10/s burst 5": q=10;w=1), else the burst and the time
// it takes to refill ("5/s burst 10": q=10;w=2, the same rate).
func newHeaderTable(name string, s limitSpec) *headerTable {
	t := &headerTable{name: name}
	quota, window := s.Count, s.Period
	if s.Burst > s.Count {
		quota, window = s.Burst, s.rate().Interval*time.Duration(s.Burst)
	}
	w := max(1, int((window+time.Second-1)/time.Second))
	t.policy = one(strconv.Quote(name) + ";q=" + strconv.Itoa(quota) + ";w=" + strconv.Itoa(w))
	full := s.rate().Interval * time.Duration(s.Burst)
	t.maxReset = int((full + time.Second - 1) / time.Second)
	if n := (s.Burst + 1) * (t.maxReset + 1); n <= maxHeaderTable {
		t.values = make([][]string, n)
		for r := 0; r <= s.Burst; r++ {
			for reset := 0; reset <= t.maxReset; reset++ {
				t.values[r*(t.maxReset+1)+reset] = one(t.format(r, reset))
			}
		}
	}
	return t
}

func one(v string) []string { return []string{v}[:1:1] }

func (t *headerTable) format(remaining, reset int) string {
	return strconv.Quote(t.name) + ";r=" + strconv.Itoa(remaining) + ";t=" + strconv.Itoa(reset)
}

// state is the RateLimit value of an answer: the requests remaining and,
// in whole seconds rounded up as Retry-After is, t. While requests remain,
// t is the time until the whole burst is back; at none, the draft's t is
// the point the next request fits, the one a refusal's Retry-After names:
// retryAfter on a refusal, one interval past the burst's start on the
// request that spent the last of it.
func (t *headerTable) state(res store.RateResult, rate store.Rate) []string {
	after := res.ResetAfter
	switch {
	case !res.Allowed:
		after = res.RetryAfter
	case res.Remaining == 0:
		after = max(0, res.ResetAfter+rate.Interval-rate.Interval*time.Duration(rate.Burst))
	}
	remaining := res.Remaining
	reset := int((after + time.Second - 1) / time.Second)
	if t.values != nil && remaining >= 0 && reset >= 0 && reset <= t.maxReset &&
		remaining*(t.maxReset+1)+reset < len(t.values) {
		return t.values[remaining*(t.maxReset+1)+reset]
	}
	return one(t.format(remaining, reset))
}
