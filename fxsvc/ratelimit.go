package fxsvc

import (
	"fmt"

	"go.uber.org/fx"

	"github.com/svckit/svc/internal/lifecycle"
	"github.com/svckit/svc/modules/ratelimit"
	"github.com/svckit/svc/modules/store"
)

type rateLimitOptions []ratelimit.Option

type rateLimitsIn struct {
	fx.In
	Options rateLimitOptions
	Rates   store.Rates `optional:"true"`
}

// RateLimits adds the rate-limit component: the routes' ratelimit.Limit
// markers spend budgets kept in the graph's store.Rates when it provides
// one (a store shared by replicas), else in memory. It provides the
// *ratelimit.Limiter and lists each route's limits in `check`.
//
// It refuses a second RateLimits in one app (fx.New fails naming
// onlyOneRateLimitsPerApp) and the settings ratelimit.New refuses (fx.New fails naming the option).
func RateLimits(opts ...ratelimit.Option) fx.Option {
	return fx.Module("svc.ratelimit",
		lifecycle.Singleton(ratelimit.Kind, "fxsvc.RateLimits"),
		fx.Supply(fx.Private, rateLimitOptions(opts)),
		fx.Provide(onlyOneRateLimitsPerApp),
		noteRoutes(ratelimit.Describe),
	)
}

// onlyOneRateLimitsPerApp builds the limiter. Its name is what fx reports
// when an app adds RateLimits twice.
func onlyOneRateLimitsPerApp(in rateLimitsIn) (*ratelimit.Limiter, error) {
	all := []ratelimit.Option(in.Options)
	if in.Rates != nil {
		// First, so a ratelimit.Store in the options still wins.
		all = append([]ratelimit.Option{ratelimit.Store(in.Rates)}, all...)
	}
	l, err := ratelimit.New(all...)
	if err != nil {
		return nil, fmt.Errorf("fxsvc.RateLimits: %w", err)
	}
	return l, nil
}
