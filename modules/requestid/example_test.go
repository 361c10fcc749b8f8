package requestid_test

import (
	"context"
	"fmt"
	"net/http"

	"github.com/svckit/svc/modules/requestid"
)

// A handler reads the request's ID to put it in its own log lines or in a
// call to another service.
func ExampleFrom() {
	orders := func(w http.ResponseWriter, r *http.Request) {
		fmt.Println("request", requestid.From(r.Context()))
	}
	// fxsvc.Serve gives every request its ID; here it is set by hand.
	r, _ := http.NewRequestWithContext(requestid.With(context.Background(), "a1b2c3"), "GET", "/orders", nil)
	orders(nil, r)
	// Output:
	// request a1b2c3
}

func ExampleValid() {
	for _, id := range []string{"a1b2c3", "2f1e-4c7a", "", "has space", "<script>"} {
		fmt.Printf("%q %v\n", id, requestid.Valid(id))
	}
	fmt.Println(requestid.Valid(requestid.New()))
	// Output:
	// "a1b2c3" true
	// "2f1e-4c7a" true
	// "" false
	// "has space" false
	// "<script>" false
	// true
}
