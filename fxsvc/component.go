package fxsvc

import (
	"fmt"

	"go.uber.org/fx"

	"github.com/svckit/svc/lifecycle"
)

// behindGate is the fx module of one behind-the-gate component: its claim
// on kind (one per app, refused naming option), its options supplied to
// the constructor alone, and its routes listed in `check`. The
// constructor stays a named function: fx names it when an app adds the
// component twice.
func behindGate[O any](module, kind, option string, opts []O, constructor any, notes routeNoter) fx.Option {
	return withKit(fx.Module(module,
		lifecycle.Singleton(kind, option),
		fx.Supply(fx.Private, opts),
		fx.Provide(constructor),
		noteRoutes(notes),
	))
}

// storeIn is what a component with a store takes from the graph: the
// app's options and, when the graph provides one, the store its replicas
// share.
type storeIn[S, O any] struct {
	fx.In
	Options []O
	Store   S `optional:"true"`
}

// buildWithStore is build with the graph's store first when it provides
// one, so a store among the app's options still wins.
func buildWithStore[S, O, C any](option string, newC func(...O) (C, error), store S, useStore func(S) O, opts []O) (C, error) {
	if any(store) != nil {
		opts = append([]O{useStore(store)}, opts...)
	}
	return build(option, newC, opts)
}

// build builds a component from the app's options; its refusal names
// option.
func build[O, C any](option string, newC func(...O) (C, error), opts []O) (C, error) {
	c, err := newC(opts...)
	if err != nil {
		var none C
		return none, fmt.Errorf("%s: %w", option, err)
	}
	return c, nil
}
