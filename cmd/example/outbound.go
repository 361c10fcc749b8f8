package main

import (
	"fmt"
	"io"
	"net/http"

	"go.uber.org/fx"

	"github.com/svckit/svc/fxsvc"
	"github.com/svckit/svc/internal/devissuer"
	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/oauthclient"
	"github.com/svckit/svc/secret"
)

// outboundWithDevIssuer fetches tokens for the "billing" API from the
// development issuer, as the service itself (client credentials).
func outboundWithDevIssuer(iss *devissuer.Issuer) fx.Option {
	return fx.Options(
		fxsvc.OAuthClient(
			oauthclient.TokenEndpoint(iss.URL+"/token"),
			oauthclient.ClientID(iss.ClientID),
			oauthclient.ClientSecret(secret.String(iss.ClientSecret)),
		),
		fxsvc.ClientCredentials("billing", oauthclient.Audience(iss.Audience), oauthclient.Scopes("invoices:read")),
	)
}

// billing calls the "billing" API (here a route of this same service,
// /invoices, so that the example needs nothing else) with a token of its
// own: the pattern caches it and refreshes it ahead of expiry.
type billing struct {
	client *http.Client // nil when no OAuthClient is configured
	server *fxsvc.Server
}

type billingIn struct {
	fx.In
	Pattern *oauthclient.Pattern `name:"billing" optional:"true"`
}

func newBilling(in billingIn) *billing {
	b := &billing{}
	if in.Pattern != nil {
		b.client = in.Pattern.Client()
	}
	return b
}

func (b *billing) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if b.client == nil || b.server == nil {
		http.Error(w, "outbound calls are not configured", http.StatusServiceUnavailable)
		return
	}
	req, err := http.NewRequestWithContext(r.Context(), http.MethodGet, "http://"+b.server.Addr()+"/invoices", nil)
	if err != nil {
		http.Error(w, http.StatusText(http.StatusInternalServerError), http.StatusInternalServerError)
		return
	}
	resp, err := b.client.Do(req)
	if err != nil {
		http.Error(w, "the billing API could not be reached", http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	w.Header().Set("Content-Type", resp.Header.Get("Content-Type"))
	w.WriteHeader(resp.StatusCode)
	_, _ = io.Copy(w, resp.Body)
}

// invoices is the downstream API: it needs the invoices:read scope, which
// the service's own token carries.
func invoices(w http.ResponseWriter, r *http.Request) {
	p, _ := authn.PrincipalFrom(r.Context())
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"caller":%q,"invoices":[{"id":"inv-1","amount":42}]}`+"\n", p.Subject)
}
