package fxsvc

import (
	"go.uber.org/fx"

	"github.com/svckit/svc/internal/behind"
	"github.com/svckit/svc/modules/conditional"
)

// Conditional adds the conditional-request component: the routes'
// conditional.ETags, Match and Require markers answer 304, 412 and 428 in
// the app's error format. It provides the *conditional.Component and
// lists each route's markers in `check`.
//
// It refuses a second Conditional in one app (fx.New fails naming
// onlyOneConditionalPerApp) and the settings conditional.New refuses.
func Conditional(opts ...conditional.Option) fx.Option {
	return behindGate("svc.conditional", "conditional-requests", "fxsvc.Conditional", opts, onlyOneConditionalPerApp, behind.Describer("conditional"))
}

// onlyOneConditionalPerApp builds the component. Its name is what fx
// reports when an app adds Conditional twice.
func onlyOneConditionalPerApp(opts []conditional.Option) (*conditional.Component, error) {
	return build("fxsvc.Conditional", conditional.New, opts)
}
