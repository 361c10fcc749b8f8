package redisstore

import (
	"context"
	"sync"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.uber.org/zap"
)

// gateMeterScope is the instrumentation scope of the gate stores' metrics.
const gateMeterScope = "github.com/svckit/svc/modules/redisstore"

// warnEvery is how often a store that keeps failing logs: one line, with
// the count of the failures it did not log.
const warnEvery = time.Minute

// failOpen reports a store that could not reach Redis and let the request
// through: a warning at most once per warnEvery (with the count of the
// ones it held back), one line when Redis answers again, and the counter
// svc.redis.fail_open on every occurrence. Errors from go-redis name the
// address and the failure, never the password.
type failOpen struct {
	store  string // "bans" or "flood"
	logger func() *zap.Logger
	now    func() time.Time

	mu  sync.Mutex
	ops map[string]*opState // by operation, so one failing operation does not hide another

	metersMu sync.Mutex
	provider metric.MeterProvider
	counter  metric.Int64Counter
}

type opState struct {
	last       time.Time
	suppressed int
}

func newFailOpen(store string, logger func() *zap.Logger) *failOpen {
	return &failOpen{store: store, logger: logger, now: time.Now, ops: map[string]*opState{}}
}

// report records one failure of op.
func (f *failOpen) report(ctx context.Context, op string, err error) {
	f.count(ctx, op)
	now := f.now()
	f.mu.Lock()
	st := f.ops[op]
	if st == nil {
		st = &opState{}
		f.ops[op] = st
	}
	if !st.last.IsZero() && now.Sub(st.last) < warnEvery {
		st.suppressed++
		f.mu.Unlock()
		return
	}
	n := st.suppressed
	st.last, st.suppressed = now, 0
	f.mu.Unlock()
	f.logger().Warn("svc.redis: "+f.store+" store cannot reach Redis; failing open (requests are let through) until it answers again",
		zap.String("svc.redis.store", f.store), zap.String("db.operation.name", op),
		zap.Error(err), zap.Int("svc.suppressed", n))
}

// ok records a success; the first after failures is logged once, with
// the failures no warning told of.
func (f *failOpen) ok() {
	f.mu.Lock()
	was, n := len(f.ops) > 0, 0
	for _, st := range f.ops {
		n += st.suppressed
	}
	if was {
		f.ops = map[string]*opState{}
	}
	f.mu.Unlock()
	if was {
		f.logger().Info("svc.redis: "+f.store+" store reaches Redis again",
			zap.String("svc.redis.store", f.store), zap.Int("svc.suppressed", n))
	}
}

func (f *failOpen) count(ctx context.Context, op string) {
	p := otel.GetMeterProvider()
	f.metersMu.Lock()
	if f.provider != p {
		// Resolved per provider, so that an app installing its own
		// provider after this store was built still gets the counter.
		f.provider = p
		f.counter, _ = p.Meter(gateMeterScope).Int64Counter("svc.redis.fail_open",
			metric.WithDescription("Operations of a Redis store that could not reach Redis and let the request through, by store and operation."),
			metric.WithUnit("{operation}"))
	}
	c := f.counter
	f.metersMu.Unlock()
	if c != nil {
		c.Add(ctx, 1, metric.WithAttributes(attribute.String("svc.redis.store", f.store), attribute.String("db.operation.name", op)))
	}
}
