package redisstore

import (
	"go.uber.org/zap"
)

// failClosed reports a fail-closed store (idempotency, DPoP replay) that
// could not reach Redis: the request is refused 503 and
// svc.redis.errors counts the operation, and a warning, at most once per
// warnEvery and operation (with the count of the ones held back), tells
// the operator why; one line when Redis answers again after a warning.
// Without it an outage answered 503 with nothing in the log (issue 37).
type failClosed struct {
	store  string // "idempotency" or "dpop"
	refuse string // what the store's callers do meanwhile
	logger func() *zap.Logger
	th     *throttle
}

func newFailClosed(store, refuse string, logger func() *zap.Logger) *failClosed {
	return &failClosed{store: store, refuse: refuse, logger: logger, th: newThrottle(warnEvery)}
}

// report tells of the outcome of op: a warning for an error (rate-limited),
// the recovery line for the first success after one. It returns err.
func (f *failClosed) report(op string, err error) error {
	if err == nil {
		if n, tell := f.th.recovered(); tell {
			f.logger().Info("svc.redis: "+f.store+" store reaches Redis again",
				zap.String("svc.redis.store", f.store), zap.Int("svc.suppressed", n))
		}
		return nil
	}
	if n, ok := f.th.pass(op); ok {
		f.logger().Warn("svc.redis: "+f.store+" store cannot reach Redis; failing closed ("+f.refuse+") until it answers again",
			zap.String("svc.redis.store", f.store), zap.String("db.operation.name", op),
			zap.Error(err), zap.Int("svc.suppressed", n))
	}
	return err
}
