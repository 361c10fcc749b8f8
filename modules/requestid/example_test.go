package requestid_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/svckit/svc/modules/requestid"
	"github.com/svckit/svc/modules/telemetry"
)

// A handler reads the request's ID to put it in its own log lines or in a
// call to another service.
func ExampleFrom() {
	orders := func(w http.ResponseWriter, r *http.Request) {
		fmt.Println("request", requestid.From(r.Context()))
	}
	// fxsvc.Serve puts the telemetry wrapper in front of every request;
	// here it is built by hand.
	tel, err := telemetry.New()
	if err != nil {
		panic(err)
	}
	r := httptest.NewRequest("GET", "/orders", nil)
	r.Header.Set(requestid.Header, "a1b2c3")
	tel.Handler(http.HandlerFunc(orders)).ServeHTTP(httptest.NewRecorder(), r)
	// Output:
	// request a1b2c3
}
