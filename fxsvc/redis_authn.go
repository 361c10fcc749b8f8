package fxsvc

import (
	"time"

	"github.com/redis/go-redis/v9"
	"go.uber.org/fx"
	"go.uber.org/zap"

	"github.com/svckit/svc/lifecycle"
	"github.com/svckit/svc/modules/authn/bans"
	"github.com/svckit/svc/modules/authn/flood"
	"github.com/svckit/svc/modules/redisstore"
)

// redisGateStores builds the stores fxsvc.Authn hands the gate's bans and
// flood limits when the app has Redis: keys under prefix, each round trip
// bounded by timeout, failures logged to log. The ban store's subscriber
// opens and closes with the app.
func redisGateStores(lc fx.Lifecycle, client redis.UniversalClient, prefix string, timeout time.Duration, log *zap.Logger) (bans.Store, flood.Store) {
	bs := redisstore.NewBans(client, prefix, redisstore.BansTimeout(timeout), redisstore.BansLogger(log))
	lifecycle.Register(lc, bs)
	return bs, redisstore.NewFlood(client, prefix, redisstore.FloodTimeout(timeout), redisstore.FloodLogger(log))
}
