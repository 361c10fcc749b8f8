package idempotency_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/svckit/svc/modules/idempotency"
)

// A retried POST with the same Idempotency-Key gets the first answer
// replayed instead of a second order (fxsvc.Idempotency() registers the
// component in an fx app; behind the gate keys are per caller).
func ExampleRequired() {
	runs := 0
	r := chi.NewRouter()
	r.With(idempotency.Required()).Post("/orders", func(w http.ResponseWriter, r *http.Request) {
		runs++
		w.WriteHeader(http.StatusCreated)
		fmt.Fprintf(w, `{"id":%d}`, runs)
	})
	c, err := idempotency.New()
	if err != nil {
		panic(err)
	}
	h := c.Middleware(r)

	for _, send := range []struct{ key, body string }{
		{"order-1", `{"item":"pen"}`},
		{"order-1", `{"item":"pen"}`}, // the retry
		{"order-1", `{"item":"ink"}`}, // the same key, another payload
		{"", `{"item":"pen"}`},        // no key on a route that requires one
	} {
		req := httptest.NewRequest("POST", "/orders", strings.NewReader(send.body))
		if send.key != "" {
			req.Header.Set("Idempotency-Key", send.key)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		replayed := rec.Header().Get("Idempotent-Replayed") == "true"
		if rec.Code < 400 {
			fmt.Println(rec.Code, rec.Body.String(), "replayed:", replayed)
		} else {
			fmt.Println(rec.Code)
		}
	}
	fmt.Println("runs:", runs)
	// Output:
	// 201 {"id":1} replayed: false
	// 201 {"id":1} replayed: true
	// 422
	// 400
	// runs: 1
}
