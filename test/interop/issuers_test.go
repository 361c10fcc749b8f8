package interop_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/authntest"
	"github.com/svckit/svc/modules/authn/bearer"
	svcerrors "github.com/svckit/svc/modules/errors"
	"github.com/svckit/svc/test/internal/oidcprovider"
)

// Issue 20, several issuers: two real authorization servers, each with its
// own keys and audience, behind one gate. Each one's tokens are admitted,
// and neither's keys are fetched for the other's tokens.
func TestOneGateTrustsTwoRealProviders(t *testing.T) {
	a := oidcprovider.Start(t, oidcprovider.Options{Resource: "https://orders.svc.test"})
	b := oidcprovider.Start(t, oidcprovider.Options{Resource: "https://partner-orders.svc.test", SigningAlg: "RS256"})
	v := bearer.Issuers(
		bearer.New(a.Issuer, a.Resource, bearer.RetryInterval(time.Millisecond)),
		bearer.New(b.Issuer, b.Resource, bearer.RetryInterval(time.Millisecond)),
	)
	lc := v.(interface {
		Open(context.Context) error
		Close(context.Context) error
		Ready() error
	})
	if err := lc.Open(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = lc.Close(context.Background()) })
	if err := authntest.WaitReady(lc, 15*time.Second); err != nil {
		t.Fatal(err)
	}

	r := chi.NewRouter()
	r.With(authn.Require("read")).Get("/orders", func(w http.ResponseWriter, r *http.Request) {
		p, _ := authn.PrincipalFrom(r.Context())
		_, _ = w.Write([]byte(p.Issuer))
	})
	gate, err := authn.New(v, authn.Resource("https://orders.svc.test"))
	if err != nil {
		t.Fatal(err)
	}
	h, err := gate.Handler(r)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(svcerrors.New().Middleware(h))
	t.Cleanup(srv.Close)

	jwksA, jwksB := a.JWKSRequests(), b.JWKSRequests()
	for _, p := range []*oidcprovider.Provider{a, b} {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/orders", nil)
		req.Header.Set("Authorization", "Bearer "+p.Token(t, "read"))
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body := make([]byte, 256)
		n, _ := resp.Body.Read(body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || string(body[:n]) != p.Issuer {
			t.Fatalf("%s's token: %d %q", p.Issuer, resp.StatusCode, body[:n])
		}
	}
	// A token of a third server nobody configured is refused before any
	// key lookup: no server's keys are fetched for it.
	c := oidcprovider.Start(t, oidcprovider.Options{Resource: "https://orders.svc.test"})
	_, err = v.Verify(t.Context(), c.Token(t, "read"))
	var te *bearer.TokenError
	if !errors.As(err, &te) || te.Reason != bearer.ReasonIssuer {
		t.Fatalf("a third server's token: %v, want reason issuer", err)
	}
	if a.JWKSRequests() != jwksA || b.JWKSRequests() != jwksB || c.JWKSRequests() != 0 {
		t.Fatalf("key fetches after start: a %d, b %d, c %d; want none", a.JWKSRequests()-jwksA, b.JWKSRequests()-jwksB, c.JWKSRequests())
	}
}
