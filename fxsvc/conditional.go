package fxsvc

import (
	"fmt"

	"go.uber.org/fx"

	"github.com/svckit/svc/internal/lifecycle"
	"github.com/svckit/svc/modules/conditional"
)

type conditionalOptions []conditional.Option

// Conditional adds the conditional-request component: the routes'
// conditional.ETags, Match and Require markers answer 304, 412 and 428 in
// the app's error format. It provides the *conditional.Component and
// lists each route's markers in `check`.
//
// It refuses a second Conditional in one app (fx.New fails naming
// onlyOneConditionalPerApp) and the settings conditional.New refuses.
func Conditional(opts ...conditional.Option) fx.Option {
	return fx.Module("svc.conditional",
		lifecycle.Singleton(conditional.Kind, "fxsvc.Conditional"),
		fx.Supply(fx.Private, conditionalOptions(opts)),
		fx.Provide(onlyOneConditionalPerApp),
		noteRoutes(conditional.Describe),
	)
}

// onlyOneConditionalPerApp builds the component. Its name is what fx
// reports when an app adds Conditional twice.
func onlyOneConditionalPerApp(opts conditionalOptions) (*conditional.Component, error) {
	c, err := conditional.New(opts...)
	if err != nil {
		return nil, fmt.Errorf("fxsvc.Conditional: %w", err)
	}
	return c, nil
}
