package ratelimit

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/svckit/svc/internal/behind"
	svcerrors "github.com/svckit/svc/modules/errors"
	"github.com/svckit/svc/modules/store"
)

// limitSpec is a parsed limit: Count requests per Period, Burst at once.
type limitSpec struct {
	Count  int
	Period time.Duration
	Burst  int
}

// String is the limit as written: "10/s burst 20".
func (s limitSpec) String() string {
	return fmt.Sprintf("%d/%s burst %d", s.Count, periodString(s.Period), s.Burst)
}

func (s limitSpec) rate() store.Rate {
	return store.Rate{Interval: s.Period / time.Duration(s.Count), Burst: s.Burst}
}

// parse reads a limit such as "10/s", "600/m", "1000/h", "5/d" or
// "100/10s" (a count, a slash and a unit or a Go duration). A burst below 1
// is 1: no request beyond the steady rate at once. It refuses a count below
// 1, a period under a millisecond and a rate finer than one request per
// nanosecond.
func parse(limit string, burst int) (limitSpec, error) {
	countText, periodText, ok := strings.Cut(strings.TrimSpace(limit), "/")
	if !ok {
		return limitSpec{}, fmt.Errorf("ratelimit: limit %q: write it as COUNT/PERIOD, for example \"10/s\" or \"100/10s\"", limit)
	}
	count, err := strconv.Atoi(countText)
	if err != nil || count < 1 {
		return limitSpec{}, fmt.Errorf("ratelimit: limit %q: the count must be a whole number of at least 1", limit)
	}
	var period time.Duration
	switch periodText {
	case "s":
		period = time.Second
	case "m":
		period = time.Minute
	case "h":
		period = time.Hour
	case "d":
		period = 24 * time.Hour
	default:
		if period, err = time.ParseDuration(periodText); err != nil {
			return limitSpec{}, fmt.Errorf("ratelimit: limit %q: the period must be s, m, h, d or a duration such as 10s", limit)
		}
	}
	if period < time.Millisecond || period/time.Duration(count) < 1 {
		return limitSpec{}, fmt.Errorf("ratelimit: limit %q: the period is too short for the count", limit)
	}
	return limitSpec{Count: count, Period: period, Burst: max(burst, 1)}, nil
}

// LimitOption configures one [Limit].
type LimitOption func(*marker)

// Name names the limit: its budgets' space in the store and its policy in
// the RateLimit headers. Give one when replicas must agree on a budget
// whatever order routes are declared in. Default: "limit-N", N counting
// the Limit declarations of the binary.
func Name(name string) LimitOption { return func(m *marker) { m.name = name } }

// KeyByRoute tells callers apart with fn on this limit only; see [KeyBy].
func KeyByRoute(fn func(r *http.Request) string) LimitOption { return func(m *marker) { m.key = fn } }

var declarations atomic.Int64

// Limit is a marker middleware: the routes it guards admit each caller at
// most limit (see parse) with burst requests at once, sharing one budget
// per caller across those routes. Use it with chi's r.With, r.Use and
// r.Group, wrap a ServeMux handler in it, or pass it to authnhuma.Use on a
// Huma operation (authnhuma.Group on a Huma group). Put authn.Require before it (outer), so that a caller
// refused for a missing scope spends nothing: the gate refuses at install
// a route where Limit wraps authn.Require.
//
// A request over the budget answers 429 rate-limit-exceeded with
// Retry-After. A store failure answers 500 and is logged. Limit panics on a
// limit parse refuses: routes are declared in code, and a bad one must
// not start.
func Limit(limit string, burst int, opts ...LimitOption) func(http.Handler) http.Handler {
	spec, err := parse(limit, burst)
	if err != nil {
		panic(err)
	}
	m := &marker{spec: spec, rate: spec.rate()}
	for _, o := range opts {
		if o != nil {
			o(m)
		}
	}
	if m.name == "" {
		m.name = "limit-" + strconv.FormatInt(declarations.Add(1), 10)
	}
	m.headers = newHeaderTable(m.name, spec)
	return func(next http.Handler) http.Handler {
		c := *m
		c.Marker = behind.Marker{Next: next, Name: "ratelimit.Limit", Says: "ratelimit=" + spec.String()}
		return &c
	}
}

// marker is one route's limit.
type marker struct {
	behind.Marker
	spec    limitSpec
	rate    store.Rate
	name    string
	key     keyFunc
	headers *headerTable
}

func (m *marker) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	l := limiterFor(r)
	if !l.paths.Applies(r) || behind.Unrouted(r) {
		m.Next.ServeHTTP(w, r)
		return
	}
	res, err := l.rates.Allow(r.Context(), l.keyOf(r, m.name, m.key), m.rate)
	if err != nil {
		behind.Refuse(w, r, fmt.Errorf("ratelimit: the budget store failed (limit %s): %w", m.name, err))
		return
	}
	// A budget the store could not check (failing open) is told to
	// nobody: any number would be made up.
	if !res.Unchecked {
		h := w.Header()
		h["Ratelimit-Policy"] = m.headers.policy
		h["Ratelimit"] = m.headers.state(res, m.rate)
	}
	if !res.Allowed {
		l.metrics.add(r, m.name)
		behind.Refuse(w, r, &svcerrors.RateLimitExceeded{RetryAfter: res.RetryAfter})
		return
	}
	m.Next.ServeHTTP(w, r)
}

func periodString(d time.Duration) string {
	switch d {
	case time.Second:
		return "s"
	case time.Minute:
		return "m"
	case time.Hour:
		return "h"
	case 24 * time.Hour:
		return "d"
	}
	return d.String()
}

// APIDoc tells API documents the RateLimit-Policy and RateLimit headers
// every answer carries, the 429 included.
func (m *marker) APIDoc(string) behind.APIDoc {
	return behind.APIDoc{Headers: []behind.Header{
		{Name: "RateLimit-Policy", Description: "The limit's quota policy (draft-ietf-httpapi-ratelimit-headers), such as \"name\";q=10;w=1.", OnRefusals: true},
		{Name: "RateLimit", Description: "The caller's budget left (r) and the seconds until it refills (t), such as \"name\";r=9;t=1. Absent while the budget store cannot be reached.", OnRefusals: true},
	}}
}

// Refusals lists what the marker answers, for API documents.
func (m *marker) Refusals() []svcerrors.Rejection {
	return []svcerrors.Rejection{&svcerrors.RateLimitExceeded{}}
}
