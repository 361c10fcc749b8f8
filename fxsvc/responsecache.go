package fxsvc

import (
	"fmt"

	"go.uber.org/fx"

	"github.com/svckit/svc/internal/lifecycle"
	"github.com/svckit/svc/modules/responsecache"
	"github.com/svckit/svc/modules/store"
)

type responseCacheOptions []responsecache.Option

type responseCacheIn struct {
	fx.In
	Options responseCacheOptions
	Cache   store.Cache `optional:"true"`
}

// ResponseCache adds the response cache: the routes' responsecache.Cached
// and Shared markers keep responses in the graph's store.Cache when it
// provides one (shared by replicas), else in memory. It provides the
// *responsecache.Component and lists each cached route in `check`.
//
// It refuses a second ResponseCache in one app (fx.New fails naming
// onlyOneResponseCachePerApp) and the settings responsecache.New refuses.
func ResponseCache(opts ...responsecache.Option) fx.Option {
	return fx.Module("svc.responsecache",
		lifecycle.Singleton(responsecache.Kind, "fxsvc.ResponseCache"),
		fx.Supply(fx.Private, responseCacheOptions(opts)),
		fx.Provide(onlyOneResponseCachePerApp),
		noteRoutes(responsecache.Describe),
	)
}

// onlyOneResponseCachePerApp builds the component. Its name is what fx
// reports when an app adds ResponseCache twice.
func onlyOneResponseCachePerApp(in responseCacheIn) (*responsecache.Component, error) {
	all := []responsecache.Option(in.Options)
	if in.Cache != nil {
		all = append([]responsecache.Option{responsecache.Store(in.Cache)}, all...)
	}
	c, err := responsecache.New(all...)
	if err != nil {
		return nil, fmt.Errorf("fxsvc.ResponseCache: %w", err)
	}
	return c, nil
}
