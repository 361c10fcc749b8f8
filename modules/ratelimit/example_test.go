package ratelimit_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/svckit/svc/modules/ratelimit"
	"github.com/svckit/svc/modules/store"
)

// A route declares its limit with the marker; the component, registered
// once (fxsvc.RateLimits() in an fx app, Middleware by hand), keeps the
// budgets.
func ExampleLimit() {
	r := chi.NewRouter()
	r.With(ratelimit.Limit("1/s", 2, ratelimit.Name("catalog"))).Get("/catalog", func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte("pens, ink"))
	})
	// The default store, with its clock stopped so the output holds still.
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	limiter, err := ratelimit.New(ratelimit.Store(store.NewMemory(store.Clock(func() time.Time { return now }))))
	if err != nil {
		panic(err)
	}
	h := limiter.Middleware(r)

	for range 3 {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/catalog", nil)) // one client address
		fmt.Println(rec.Code, rec.Header().Get("RateLimit-Policy"), rec.Header().Get("RateLimit"), rec.Header().Values("Retry-After"))
	}
	// Output:
	// 200 "catalog";q=2;w=2 "catalog";r=1;t=1 []
	// 200 "catalog";q=2;w=2 "catalog";r=0;t=1 []
	// 429 "catalog";q=2;w=2 "catalog";r=0;t=1 [1]
}
