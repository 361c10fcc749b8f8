// Package behindtest builds the stack the components behind the gate are
// tested in: the error format, the components' own middleware and the
// authentication gate in front of a router, as fxsvc.Serve orders them.
package behindtest

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/bearer"
	svcerrors "github.com/svckit/svc/modules/errors"
	"github.com/svckit/svc/modules/telemetry"
)

// Tokens the fake verifier knows. Any other token is refused as forged.
const (
	Alice = "alice-token"
	Bob   = "bob-token"
	// Reader holds only the "read" scope.
	Reader = "reader-token"
)

// Issuer is the issuer of every fake caller.
const Issuer = "https://idp.test"

// Verifier maps the tokens above to callers: fast tests without keys.
type Verifier struct{}

// Verify implements bearer.Verifier.
func (Verifier) Verify(_ context.Context, token string) (bearer.Principal, error) {
	switch token {
	case Alice:
		return bearer.Principal{Subject: "alice", Issuer: Issuer, Scopes: bearer.NewScopes("read", "write"), Authenticated: true}, nil
	case Bob:
		return bearer.Principal{Subject: "bob", Issuer: Issuer, Scopes: bearer.NewScopes("read", "write"), Authenticated: true}, nil
	case Reader:
		return bearer.Principal{Subject: "reader", Issuer: Issuer, Scopes: bearer.NewScopes("read"), Authenticated: true}, nil
	}
	return bearer.Principal{}, &bearer.TokenError{Reason: bearer.ReasonSignature}
}

// Issuers implements the verifier's issuer listing.
func (Verifier) Issuers() []string { return []string{Issuer} }

// Stack puts the error format, then the given component middlewares, then
// the gate in front of router, and serves it on a test server closed with
// the test.
func Stack(t testing.TB, router http.Handler, components ...func(http.Handler) http.Handler) *httptest.Server {
	t.Helper()
	g, err := authn.New(Verifier{})
	if err != nil {
		t.Fatal(err)
	}
	h, err := g.Handler(router)
	if err != nil {
		t.Fatal(err)
	}
	for i := len(components) - 1; i >= 0; i-- {
		h = components[i](h)
	}
	h = svcerrors.New().Middleware(h)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// Telemetry is svc's outermost wrapper (modules/telemetry: request IDs,
// the caller's address) believing the forwarding headers of the proxies
// cidrs, for the start of a [Stack]'s components.
func Telemetry(t testing.TB, cidrs ...string) func(http.Handler) http.Handler {
	t.Helper()
	tel, err := telemetry.New(telemetry.TrustedProxies(cidrs...))
	if err != nil {
		t.Fatal(err)
	}
	return tel.Handler
}

// Do sends a request with an optional bearer token and headers ("Name",
// "value" pairs).
func Do(t testing.TB, srv *httptest.Server, method, path, token string, body string, headers ...string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, nil)
	if body != "" {
		req, err = http.NewRequest(method, srv.URL+path, stringsReader(body))
	}
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}
