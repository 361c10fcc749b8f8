package main

import (
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/svckit/svc/modules/authn"
	svcerrors "github.com/svckit/svc/modules/errors"
	"github.com/svckit/svc/modules/metrics"
)

// newRouter is the app's own chi router. Every route is authenticated
// unless excluded (see gateOptions) or marked anonymous.
func newRouter(b *billing, m *metrics.Metrics, g *authn.Gate, res *svcerrors.Responses) chi.Router {
	r := authn.NewChiRouter()
	r.Get("/healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok\n")) })
	r.With(authn.Anonymous).Get("/hello", hello)
	r.Get("/me", me)
	r.With(authn.Require("admin")).Get("/admin", admin)
	// Step-up (RFC 9470): an admin token is not enough here without a
	// recent multi-factor login.
	r.With(authn.Require("admin"), authn.RequireACR("mfa"), authn.MaxAge(5*time.Minute)).Get("/admin/keys", admin)
	r.Get("/ws", echo)
	r.Method(http.MethodGet, "/billing", b)
	r.With(authn.Require("invoices:read")).Get("/invoices", invoices)
	r.Method(http.MethodGet, "/metrics", metrics.Handler(m)) // excluded: scrape without a token
	mountErrorDemo(r)
	mountAPI(r, g, res)
	mountOrders(r)
	return r
}
