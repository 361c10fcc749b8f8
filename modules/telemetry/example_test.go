package telemetry_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/svckit/svc/modules/requestid"
	"github.com/svckit/svc/modules/telemetry"
)

// The outermost wrapper (fxsvc.Serve installs it for every app): a
// well-formed X-Request-ID is kept and echoed, and the handler reads it.
func ExampleNew() {
	t, err := telemetry.New() // request IDs on; add AccessLog; metrics and spans go to the global providers
	if err != nil {
		panic(err)
	}
	h := t.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Println("handler sees", requestid.From(r.Context()))
	}))

	req := httptest.NewRequest("GET", "/orders", nil)
	req.Header.Set("X-Request-ID", "a1b2c3")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	fmt.Println("response carries", rec.Header().Get("X-Request-ID"))
	// Output:
	// handler sees a1b2c3
	// response carries a1b2c3
}

// Methods outside RFC 9110 and PATCH are one value, so a caller cannot
// make up label values.
func ExampleMethod() {
	fmt.Println(telemetry.Method("GET"), telemetry.Method("PATCH"), telemetry.Method("get"), telemetry.Method("BREW"))
	// Output:
	// GET PATCH _OTHER _OTHER
}
