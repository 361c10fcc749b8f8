package redisstore

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
	"go.uber.org/zap"

	"github.com/svckit/svc/modules/store"
)

// introspections is the store.Introspections of [Client.Introspections].
type introspections struct {
	c  *Client
	th *throttle
}

// Introspections returns a store.Introspections on this connection,
// so that a token one replica introspected is not introspected again by
// the others: GET and SET with PX, one round trip each, under the
// Config's Prefix and "introspection:". It holds the bytes the verifier
// gives it and vouches for none of them: the verifier authenticates every
// entry it reads (see bearer.Store), so that writing Redis
// does not let anyone authenticate a token. fxredis.Redis hands it to
// fxsvc.Authn's verifier.
//
// It falls back to the endpoint, never open: a Get Redis does not answer
// within Timeout returns its error and the verifier introspects the token
// at the issuer; a failed Set stores nothing. Failures are counted in
// svc.redis.errors under db.operation.name introspection.get and
// introspection.set, and logged at most once a minute (with the count of
// the ones held back), with one line when Redis answers again.
func (c *Client) Introspections() store.Introspections {
	return &introspections{c: c, th: newThrottle(warnEvery)}
}

func (s *introspections) key(k string) string {
	var b strings.Builder
	b.WriteString(s.c.cfg.Prefix)
	b.WriteString("introspection:")
	escape(&b, k)
	return b.String()
}

func (s *introspections) Get(ctx context.Context, key string) ([]byte, error) {
	var raw []byte
	err := s.c.do(ctx, "introspection.get", func(ctx context.Context) error {
		var err error
		raw, err = s.c.rdb.Get(ctx, s.key(key)).Bytes()
		return err
	})
	switch {
	case errors.Is(err, redis.Nil):
		s.ok()
		return nil, nil
	case err != nil:
		s.failed("introspection.get", err)
		return nil, err
	}
	s.ok()
	return raw, nil
}

func (s *introspections) Set(ctx context.Context, key string, value []byte, ttl time.Duration) error {
	if ttl <= 0 {
		return nil
	}
	err := s.c.do(ctx, "introspection.set", func(ctx context.Context) error {
		return s.c.rdb.Set(ctx, s.key(key), value, max(time.Millisecond, ttl)).Err()
	})
	if err != nil {
		s.failed("introspection.set", err)
		return err
	}
	s.ok()
	return nil
}

func (s *introspections) failed(op string, err error) {
	n, ok := s.th.pass(op)
	if !ok {
		return
	}
	s.c.log.Warn("svc.redis: introspection store cannot reach Redis; tokens are introspected at the issuer's endpoint (none passes unchecked) until it answers again",
		zap.String("svc.redis.store", "introspection"), zap.String("db.operation.name", op),
		zap.Error(err), zap.Int("svc.suppressed", n))
}

func (s *introspections) ok() {
	if n, was := s.th.recovered(); was {
		s.c.log.Info("svc.redis: introspection store reaches Redis again",
			zap.String("svc.redis.store", "introspection"), zap.Int("svc.suppressed", n))
	}
}
