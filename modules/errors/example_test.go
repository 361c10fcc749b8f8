package svcerrors_test

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"time"

	svcerrors "github.com/svckit/svc/modules/errors"
)

// A handler returns the error; the app's registered format answers it
// (fxsvc.Errors registers RFC 9457 for a whole app; Middleware does it by
// hand).
func ExampleHandler() {
	orders := svcerrors.Handler(func(w http.ResponseWriter, r *http.Request) error {
		return &svcerrors.RateLimitExceeded{RetryAfter: 1500 * time.Millisecond}
	})
	h := svcerrors.New().Middleware(orders)

	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/orders/42", nil))
	fmt.Println(rec.Code, rec.Header().Get("Content-Type"), rec.Header().Get("Retry-After"))
	fmt.Println(rec.Body.String())
	// Output:
	// 429 application/problem+json 2
	// {"type":"https://github.com/svckit/svc/blob/main/docs/errors.md#rate-limit-exceeded","title":"Rate limit exceeded","status":429,"detail":"Too many requests. Retry after the time given.","instance":"/orders/42","retry_after":1.5}
}

// The kinds are Go types: a caller branches on them with errors.As.
func ExampleRateLimitExceeded() {
	err := fmt.Errorf("charging: %w", &svcerrors.RateLimitExceeded{RetryAfter: time.Second})
	var limited *svcerrors.RateLimitExceeded
	if errors.As(err, &limited) {
		fmt.Println("retry after", limited.RetryAfter)
	}
	// Output:
	// retry after 1s
}

// An error no kind knows answers a 500 that says nothing of it.
func ExampleNew() {
	h := svcerrors.New().Middleware(svcerrors.Handler(func(http.ResponseWriter, *http.Request) error {
		return errors.New("db: password authentication failed for user orders")
	}))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/orders", nil))
	fmt.Println(rec.Code, rec.Body.String())
	// Output:
	// 500 {"type":"about:blank","title":"Internal Server Error","status":500,"detail":"The server could not complete the request.","instance":"/orders"}
}
