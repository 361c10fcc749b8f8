package fxredis_test

import (
	"fmt"

	"github.com/go-chi/chi/v5"
	"go.uber.org/fx"

	"github.com/svckit/svc/fxsvc"
	"github.com/svckit/svc/modules/redisstore/fxredis"
)

// The rate limits, idempotency records and cached responses of every
// replica live on the Redis of SVC_REDIS_URL (and the gate's bans and
// flood limits, when the app turns them on).
func ExampleRedis() {
	app := fx.Options(
		fxsvc.Errors(),
		fxsvc.Authn(nil), // SVC_AUTHN_ISSUER, SVC_AUTHN_AUDIENCE
		fxsvc.Health(),   // /readyz checks Redis too
		fxredis.Redis(),  // SVC_REDIS_URL=rediss://:pw@redis:6379/0
		fxsvc.RateLimits(), fxsvc.Idempotency(), fxsvc.ResponseCache(),
		fxsvc.Serve(),
	)
	// fx.ValidateApp checks the graph without reading SVC_* or dialing
	// Redis; an app runs it with fxsvc.Main(app, fx.Provide(newRouter)).
	fmt.Println(fx.ValidateApp(app, fx.Provide(chi.NewRouter)))
	// Output:
	// <nil>
}
