package fxsvc

import (
	"fmt"

	"go.uber.org/fx"

	"github.com/svckit/svc/internal/lifecycle"
	"github.com/svckit/svc/modules/idempotency"
	"github.com/svckit/svc/modules/store"
)

type idempotencyOptions []idempotency.Option

type idempotencyIn struct {
	fx.In
	Options idempotencyOptions
	Records store.Idempotency `optional:"true"`
}

// Idempotency adds the idempotent-writes component: the routes'
// idempotency.Required and Optional markers keep their records in the
// graph's store.Idempotency when it provides one (shared by replicas),
// else in memory. It provides the *idempotency.Component and lists each
// idempotent route in `check`.
//
// It refuses a second Idempotency in one app (fx.New fails naming
// onlyOneIdempotencyPerApp) and the settings idempotency.New refuses.
func Idempotency(opts ...idempotency.Option) fx.Option {
	return fx.Module("svc.idempotency",
		lifecycle.Singleton(idempotency.Kind, "fxsvc.Idempotency"),
		fx.Supply(fx.Private, idempotencyOptions(opts)),
		fx.Provide(onlyOneIdempotencyPerApp),
		noteRoutes(idempotency.Describe),
	)
}

// onlyOneIdempotencyPerApp builds the component. Its name is what fx
// reports when an app adds Idempotency twice.
func onlyOneIdempotencyPerApp(in idempotencyIn) (*idempotency.Component, error) {
	all := []idempotency.Option(in.Options)
	if in.Records != nil {
		all = append([]idempotency.Option{idempotency.Store(in.Records)}, all...)
	}
	c, err := idempotency.New(all...)
	if err != nil {
		return nil, fmt.Errorf("fxsvc.Idempotency: %w", err)
	}
	return c, nil
}
