package fxsvc

import (
	"go.uber.org/fx"

	"github.com/svckit/svc/internal/behind"
	"github.com/svckit/svc/modules/idempotency"
	"github.com/svckit/svc/modules/store"
)

// Idempotency adds the idempotent-writes component: the routes'
// idempotency.Required and Optional markers keep their records in the
// graph's store.Idempotency when it provides one (shared by replicas),
// else in memory. It provides the *idempotency.Component and lists each
// idempotent route in `check`.
//
// It refuses a second Idempotency in one app (fx.New fails naming
// onlyOneIdempotencyPerApp) and the settings idempotency.New refuses.
func Idempotency(opts ...idempotency.Option) fx.Option {
	return behindGate("svc.idempotency", "idempotency", "fxsvc.Idempotency", opts, onlyOneIdempotencyPerApp, behind.Describer("idempotency"))
}

// onlyOneIdempotencyPerApp builds the component. Its name is what fx
// reports when an app adds Idempotency twice.
func onlyOneIdempotencyPerApp(in storeIn[store.Idempotency, idempotency.Option]) (*idempotency.Component, error) {
	return buildWithStore("fxsvc.Idempotency", idempotency.New, in.Store, idempotency.Store, in.Options)
}
