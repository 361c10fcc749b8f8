package fxsvc

import (
	"go.uber.org/fx"

	"github.com/svckit/svc/internal/behind"
	"github.com/svckit/svc/modules/responsecache"
	"github.com/svckit/svc/modules/store"
)

// ResponseCache adds the response cache: the routes' responsecache.Cached
// and Shared markers keep responses in the graph's store.Cache when it
// provides one (shared by replicas), else in memory. It provides the
// *responsecache.Component and lists each cached route in `check`.
//
// It refuses a second ResponseCache in one app (fx.New fails naming
// onlyOneResponseCachePerApp) and the settings responsecache.New refuses.
func ResponseCache(opts ...responsecache.Option) fx.Option {
	return behindGate("svc.responsecache", "response-cache", "fxsvc.ResponseCache", opts, onlyOneResponseCachePerApp, behind.Describer("responsecache"))
}

// onlyOneResponseCachePerApp builds the component. Its name is what fx
// reports when an app adds ResponseCache twice.
func onlyOneResponseCachePerApp(in storeIn[store.Cache, responsecache.Option]) (*responsecache.Component, error) {
	return buildWithStore("fxsvc.ResponseCache", responsecache.New, in.Store, responsecache.Store, in.Options)
}
