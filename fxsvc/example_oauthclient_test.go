package fxsvc_test

import (
	"errors"
	"fmt"
	"net/http"

	"go.uber.org/fx"

	"github.com/svckit/svc/fxsvc"
	"github.com/svckit/svc/modules/authn"
	svcerrors "github.com/svckit/svc/modules/errors"
	"github.com/svckit/svc/modules/oauthclient"
)

// orders calls the orders API on behalf of the caller.
type orders struct{ api *oauthclient.Pattern }

// list passes the caller's verified token to the exchange explicitly; a
// token failure it returns answers 503 or 502 in the app's error format.
func (o *orders) list(w http.ResponseWriter, r *http.Request) error {
	tok, ok := authn.TokenFrom(r.Context())
	if !ok {
		return errors.New("orders: the route must be authenticated")
	}
	req, err := http.NewRequestWithContext(r.Context(), http.MethodGet, "https://orders.internal/v1/orders", nil)
	if err != nil {
		return err
	}
	resp, err := o.api.ClientFor(tok).Do(req) // or o.api.TokenFor(r.Context(), tok)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	w.WriteHeader(resp.StatusCode)
	return nil
}

// Regression: issue 14 item 21. The TokenExchange doc showed
// p.TokenFor(ctx, authn.TokenFrom(ctx)), which does not compile (TokenFrom
// returns two values); this example is compiled with the tests, and
// fx.ValidateApp checks its graph without reading SVC_OAUTHCLIENT_* (an
// app runs it with fxsvc.Main).
func ExampleTokenExchange() {
	err := fx.ValidateApp(
		fxsvc.OAuthClient(), // SVC_OAUTHCLIENT_*
		fxsvc.TokenExchange("orders", oauthclient.Audience("orders-api")),
		fx.Provide(fx.Annotate(
			func(p *oauthclient.Pattern) *orders { return &orders{api: p} },
			fx.ParamTags(`name:"orders"`),
		)),
		fx.Invoke(func(o *orders) http.Handler { return svcerrors.Handler(o.list) }),
	)
	fmt.Println(err)
	// Output:
	// <nil>
}
