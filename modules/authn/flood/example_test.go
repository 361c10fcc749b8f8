package flood_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/bearer"
	"github.com/svckit/svc/modules/authn/flood"
)

// tokens is a Verifier of its own; an app uses bearer.New(issuer,
// audience).
type tokens map[string]bearer.Principal

func (t tokens) Verify(_ context.Context, token string) (bearer.Principal, error) {
	if p, ok := t[token]; ok {
		return p, nil
	}
	return bearer.Principal{}, &bearer.TokenError{Reason: bearer.ReasonSignature}
}

// Ten requests a second per address, twenty at once; the gate is given it
// as an option: fxsvc.Authn(verifier, authn.Flood(l)). Here two at once:
// on an app with a public route, requests without a token to URLs no route
// serves spend the budget; the public route itself is never limited by it.
func ExampleNew() {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC) // a real app leaves the clock alone
	l := flood.New(flood.Rate(10), flood.Burst(2), flood.Clock(func() time.Time { return now }))
	gate, err := authn.New(tokens{}, authn.Flood(l))
	if err != nil {
		panic(err)
	}
	r := authn.NewChiRouter()
	r.With(authn.Anonymous).Get("/hello", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("hello")) })
	h, err := gate.Handler(r)
	if err != nil {
		panic(err)
	}

	for _, path := range []string{"/admin", "/.env", "/wp-login.php", "/hello"} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil)) // from 192.0.2.1
		fmt.Println(strings.TrimSpace(fmt.Sprint(path, " ", rec.Code, " ", rec.Header().Get("Retry-After"))))
	}
	// Output:
	// /admin 401
	// /.env 401
	// /wp-login.php 429 1
	// /hello 200
}
