package fxsvc

import (
	"go.uber.org/fx"

	"github.com/svckit/svc/internal/behind"
	"github.com/svckit/svc/modules/ratelimit"
	"github.com/svckit/svc/modules/store"
)

// RateLimits adds the rate-limit component: the routes' ratelimit.Limit
// markers spend budgets kept in the graph's store.Rates when it provides
// one (a store shared by replicas), else in memory. It provides the
// *ratelimit.Limiter and lists each route's limits in `check`.
//
// It refuses a second RateLimits in one app (fx.New fails naming
// onlyOneRateLimitsPerApp) and the settings ratelimit.New refuses (fx.New fails naming the option).
func RateLimits(opts ...ratelimit.Option) fx.Option {
	return behindGate("svc.ratelimit", "rate-limits", "fxsvc.RateLimits", opts, onlyOneRateLimitsPerApp, behind.Describer("ratelimit"))
}

// onlyOneRateLimitsPerApp builds the limiter. Its name is what fx reports
// when an app adds RateLimits twice.
func onlyOneRateLimitsPerApp(in storeIn[store.Rates, ratelimit.Option]) (*ratelimit.Limiter, error) {
	return buildWithStore("fxsvc.RateLimits", ratelimit.New, in.Store, ratelimit.Store, in.Options)
}
