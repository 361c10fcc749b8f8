package fxsvc

import (
	"errors"

	"go.uber.org/fx"
)

// redisFromEnv is fxredis.Redis once package modules/redisstore/fxredis is
// linked; nil before.
var redisFromEnv func() fx.Option

// Redis connects the app to Redis from SVC_REDIS_* and puts the shared
// state of the components behind the gate there (rate limits, idempotency
// records, cached responses, bans and flood limits): see package
// modules/redisstore/fxredis, which must be linked for it — import it,
// even blank (`import _ "github.com/svckit/svc/modules/redisstore/fxredis"`),
// so that an app without Redis links no Redis client. Without that import
// the app fails to build with an error saying so.
func Redis() fx.Option {
	if redisFromEnv == nil {
		return fx.Error(errors.New(`fxsvc.Redis: the Redis stores are not linked into this binary: import _ "github.com/svckit/svc/modules/redisstore/fxredis" (kept apart so that apps without Redis link no Redis client)`))
	}
	return redisFromEnv()
}

// RegisterRedis is how package modules/redisstore/fxredis makes [Redis]
// work when it is linked; apps never call it.
func RegisterRedis(fromEnv func() fx.Option) { redisFromEnv = fromEnv }
