package redisstore

import (
	"go.uber.org/zap"
)

// storeLog is the log of one store that could not reach Redis: a warning
// at most once per warnEvery and operation (with the count of the ones
// held back) saying what the store does meanwhile, and one line when Redis
// answers again after a warning. failOpen and failClosed both write it.
type storeLog struct {
	store  string // "ratelimit", "idempotency", …
	mode   string // what the store does meanwhile: "failing open (…)"
	logger func() *zap.Logger
	th     *throttle
}

func newStoreLog(store, mode string, logger func() *zap.Logger) storeLog {
	return storeLog{store: store, mode: mode, logger: logger, th: newThrottle(warnEvery)}
}

// warn logs a failure of op, rate-limited.
func (l storeLog) warn(op string, err error) {
	if n, ok := l.th.pass(op); ok {
		l.logger().Warn("svc.redis: "+l.store+" store cannot reach Redis; "+l.mode+" until it answers again",
			zap.String("svc.redis.store", l.store), zap.String("db.operation.name", op),
			zap.Error(err), zap.Int("svc.suppressed", n))
	}
}

// ok records a success; the first after a warning is logged once, with
// the failures no warning told of. Without a warning to answer it costs
// one atomic load.
func (l storeLog) ok() {
	if n, was := l.th.recovered(); was {
		l.logger().Info("svc.redis: "+l.store+" store reaches Redis again",
			zap.String("svc.redis.store", l.store), zap.Int("svc.suppressed", n))
	}
}

// failClosed reports a fail-closed store (idempotency, DPoP replay) that
// could not reach Redis: the request is refused 503 and svc.redis.errors
// counts the operation; its storeLog tells the operator why. Without it an
// outage answered 503 with nothing in the log (issue 37).
type failClosed struct{ storeLog }

func newFailClosed(store, refuse string, logger func() *zap.Logger) *failClosed {
	return &failClosed{newStoreLog(store, "failing closed ("+refuse+")", logger)}
}

// report tells of the outcome of op and returns err.
func (f *failClosed) report(op string, err error) error {
	if err == nil {
		f.ok()
		return nil
	}
	f.warn(op, err)
	return err
}
