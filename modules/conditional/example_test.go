package conditional_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/svckit/svc/modules/conditional"
)

// ETags gives a read a strong ETag from its body and answers a client
// that holds it with 304 (fxsvc.Conditional() registers the component in
// an fx app).
func ExampleETags() {
	r := chi.NewRouter()
	r.With(conditional.ETags()).Get("/orders/1", func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"id":1,"status":"open"}`))
	})
	c, err := conditional.New()
	if err != nil {
		panic(err)
	}
	h := c.Middleware(r)

	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/orders/1", nil))
	etag := rec.Header().Get("ETag")
	fmt.Println(rec.Code, etag == conditional.ETagOf(rec.Body.Bytes()))

	req := httptest.NewRequest("GET", "/orders/1", nil)
	req.Header.Set("If-None-Match", etag)
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	fmt.Println(rec.Code, rec.Body.Len())
	// Output:
	// 200 true
	// 304 0
}

// Require makes a write name the version it changes: no precondition is
// 428, a stale one 412.
func ExampleRequire() {
	current := `"v2"`
	r := chi.NewRouter()
	r.With(conditional.Require(func(*http.Request) (string, time.Time, error) {
		return current, time.Time{}, nil // read from the app's storage
	})).Put("/orders/1", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	})
	c, _ := conditional.New()
	h := c.Middleware(r)

	for _, ifMatch := range []string{"", `"v1"`, `"v2"`} {
		req := httptest.NewRequest("PUT", "/orders/1", nil)
		if ifMatch != "" {
			req.Header.Set("If-Match", ifMatch)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		fmt.Printf("If-Match %s: %d\n", ifMatch, rec.Code)
	}
	// Output:
	// If-Match : 428
	// If-Match "v1": 412
	// If-Match "v2": 204
}
