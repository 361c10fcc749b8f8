package responsecache_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/svckit/svc/modules/responsecache"
)

// An anonymous GET whose answer says max-age is served from the cache for
// that long, with Age (fxsvc.ResponseCache() registers the component in an
// fx app; Cached never stores an authenticated answer, Shared does).
func ExampleCached() {
	runs := 0
	r := chi.NewRouter()
	r.With(responsecache.Cached()).Get("/catalog", func(w http.ResponseWriter, r *http.Request) {
		runs++
		w.Header().Set("Cache-Control", "max-age=30")
		_, _ = w.Write([]byte("pens, ink"))
	})
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	c, err := responsecache.New(responsecache.Clock(func() time.Time { return now }))
	if err != nil {
		panic(err)
	}
	h := c.Middleware(r)

	for range 2 {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/catalog", nil))
		fmt.Println(rec.Code, rec.Body.String(), rec.Header().Values("Age"))
		now = now.Add(5 * time.Second)
	}
	fmt.Println("runs:", runs)
	// Output:
	// 200 pens, ink []
	// 200 pens, ink [5]
	// runs: 1
}
