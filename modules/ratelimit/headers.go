package ratelimit

import (
	"strconv"
	"time"
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
// draft-ietf-httpapi-ratelimit-headers: RateLimit-Policy "name";q=Count;w=
// seconds of the period, and RateLimit "name";r=remaining;t=seconds until
// the whole burst is back.
func newHeaderTable(name string, s Spec) *headerTable {
	t := &headerTable{name: name}
	w := max(1, int((s.Period+time.Second-1)/time.Second))
	t.policy = one(strconv.Quote(name) + ";q=" + strconv.Itoa(s.Count) + ";w=" + strconv.Itoa(w))
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

// state is the RateLimit value: remaining requests and whole seconds
// (rounded up) until the budget is full.
func (t *headerTable) state(remaining int, resetAfter time.Duration) []string {
	reset := int((resetAfter + time.Second - 1) / time.Second)
	if t.values != nil && remaining >= 0 && reset >= 0 && reset <= t.maxReset &&
		remaining*(t.maxReset+1)+reset < len(t.values) {
		return t.values[remaining*(t.maxReset+1)+reset]
	}
	return one(t.format(remaining, reset))
}
