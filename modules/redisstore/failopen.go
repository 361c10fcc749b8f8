package redisstore

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.uber.org/zap"

	"github.com/svckit/svc/internal/otelglobal"
)

// warnEvery is how often one kind of failure is logged while it lasts:
// one line, with the count of the ones held back.
const warnEvery = time.Minute

// maxKinds bounds the kinds a throttle tells apart; any further kind
// shares one budget, so that no caller can grow the map without bound.
const maxKinds = 64

// throttle lets one line per kind through each period and counts the
// ones it held back. It is the one rate limit on every log line of this
// package: the fail-open warnings of the stores and go-redis's own lines.
//
// A success does not reset it: on a Cluster with one shard down, some
// keys fail while others succeed, every few milliseconds, and a limit
// reset by each success let a warning and a recovery line through each
// time (issue 37). recovered tells of a recovery after a warning, at most
// once a period, so a store writes at most one warning per kind and one
// recovery line per period, whatever the interleaving.
type throttle struct {
	period time.Duration
	now    func() time.Time

	warned atomic.Bool // a line was let through that no recovered has told of yet
	mu     sync.Mutex
	kinds  map[string]*kindState
	told   time.Time // the last recovery told of
}

type kindState struct {
	last       time.Time
	suppressed int
}

func newThrottle(period time.Duration) *throttle {
	return &throttle{period: period, now: time.Now, kinds: map[string]*kindState{}}
}

// pass reports whether a line of kind may be written now and, if so, how
// many of that kind were held back since the last one written.
func (t *throttle) pass(kind string) (suppressed int, ok bool) {
	now := t.now()
	t.mu.Lock()
	defer t.mu.Unlock()
	st := t.kinds[kind]
	if st == nil {
		if len(t.kinds) >= maxKinds {
			kind = "other"
			st = t.kinds[kind]
		}
		if st == nil {
			st = &kindState{}
			t.kinds[kind] = st
		}
	}
	if !st.last.IsZero() && now.Sub(st.last) < t.period {
		st.suppressed++
		return 0, false
	}
	n := st.suppressed
	st.last, st.suppressed = now, 0
	t.warned.Store(true)
	return n, true
}

// recovered reports whether a success should be told of: true once after
// the lines pass let through, at most once a period, with the lines held
// back since (which it then forgets, as told). The period of each kind
// runs on: a failure right after a recovery is held back like any other.
// Without a line to answer it costs one atomic load.
func (t *throttle) recovered() (suppressed int, tell bool) {
	if !t.warned.Load() {
		return 0, false
	}
	now := t.now()
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.told.IsZero() && now.Sub(t.told) < t.period {
		return 0, false // told of within the period: a later success tells
	}
	if !t.warned.Swap(false) {
		return 0, false // another success told of it
	}
	t.told = now
	for _, st := range t.kinds {
		suppressed += st.suppressed
		st.suppressed = 0
	}
	return suppressed, true
}

// failOpen reports a fail-open store (rate limits, bans, flood) that
// could not reach Redis: its storeLog, and for every request let through
// unchecked the counter svc.redis.fail_open{svc.redis.store,
// db.operation.name}. Errors from go-redis name the address and the
// failure, never the password.
type failOpen struct {
	storeLog
	// counter is on the global meter provider, as every svc component's
	// metrics are (otelglobal), so an app installing its provider after
	// this store was built still gets it.
	counter otelglobal.Instruments[metric.Int64Counter]

	attrsMu sync.Mutex
	attrs   map[string]metric.AddOption // by operation
}

// newFailOpen reports for store to logger's logger.
func newFailOpen(store string, logger func() *zap.Logger) *failOpen {
	return &failOpen{storeLog: newStoreLog(store, "failing open (requests are let through unchecked)", logger),
		attrs: map[string]metric.AddOption{}}
}

// admit records one request that op let through without its check,
// because Redis failed with err.
func (f *failOpen) admit(ctx context.Context, op string, err error) {
	f.count(ctx, op)
	f.warn(op, err)
}

func (f *failOpen) count(ctx context.Context, op string) {
	c := f.counter.Get(func(p metric.MeterProvider, _ *metric.Int64Counter) *metric.Int64Counter {
		c, _ := p.Meter(meterScope).Int64Counter("svc.redis.fail_open",
			metric.WithDescription("Requests a fail-open Redis store (ratelimit, bans, flood) let through without its check because Redis did not answer, by store and operation."),
			metric.WithUnit("{request}"))
		return &c
	})
	f.attrsMu.Lock()
	a, ok := f.attrs[op]
	if !ok {
		a = metric.WithAttributeSet(attribute.NewSet(attribute.String("svc.redis.store", f.store), attribute.String("db.operation.name", op)))
		f.attrs[op] = a
	}
	f.attrsMu.Unlock()
	(*c).Add(ctx, 1, a)
}
