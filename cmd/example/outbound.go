package main

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"

	"go.uber.org/fx"

	"github.com/svckit/svc/devissuer"
	"github.com/svckit/svc/fxsvc"
	"github.com/svckit/svc/modules/authn"
	svcerrors "github.com/svckit/svc/modules/errors"
	"github.com/svckit/svc/modules/oauthclient"
	"github.com/svckit/svc/secret"
)

// identityVars are the SVC_OAUTHCLIENT_* variables that say which
// authorization server and client to use. Setting any of them means the
// deployment chose its own, and the development issuer's client is not
// mixed in.
var identityVars = []string{"ISSUER", "TOKEN_ENDPOINT", "CLIENT_ID", "CLIENT_SECRET", "CLIENT_SECRET_FILE", "ASSERTION_FILE", "TLS_CERT_FILE", "TLS_KEY_FILE"}

// outboundWithDevIssuer fetches tokens for the "billing" API, as the
// service itself (client credentials). The environment wins over the
// development issuer: its token endpoint and client are used only when no
// SVC_OAUTHCLIENT_ identity variable is set (a partial set fails start,
// naming what is missing, rather than be completed silently), and the
// other SVC_OAUTHCLIENT_* and SVC_CLIENTCREDENTIALS_BILLING_* variables are
// read and checked either way.
func outboundWithDevIssuer(iss *devissuer.Issuer) fx.Option {
	var opts []oauthclient.Option
	if !anySet("SVC_OAUTHCLIENT_", identityVars) {
		opts = []oauthclient.Option{
			oauthclient.TokenEndpoint(iss.URL + "/token"),
			oauthclient.ClientID(iss.ClientID),
			oauthclient.ClientSecret(secret.String(iss.ClientSecret)),
		}
	}
	return fx.Options(fxsvc.OAuthClient(opts...), billingPattern(iss.Audience))
}

// outboundFromEnv is the outbound client when SVC_AUTHN_ISSUER names a real
// issuer: from SVC_OAUTHCLIENT_* alone, checked at start, whenever any of
// them is set. With none set the service makes no outbound calls and
// /billing answers 500 with the cause in the log.
func outboundFromEnv() fx.Option {
	if !anySet("SVC_OAUTHCLIENT_", nil) {
		return fx.Options()
	}
	// The billing API is this service: tokens for it carry the audience
	// its own gate checks.
	return fx.Options(fxsvc.OAuthClient(), billingPattern(os.Getenv("SVC_AUTHN_AUDIENCE")))
}

// billingPattern asks for tokens to this service's own /invoices: its
// audience and the invoices:read scope, unless
// SVC_CLIENTCREDENTIALS_BILLING_AUDIENCE or _SCOPES say otherwise (code
// options would override them silently).
func billingPattern(audience string) fx.Option {
	var opts []oauthclient.PatternOption
	if !anySet("SVC_CLIENTCREDENTIALS_BILLING_", []string{"AUDIENCE", "RESOURCE"}) && audience != "" {
		opts = append(opts, oauthclient.Audience(audience))
	}
	if !anySet("SVC_CLIENTCREDENTIALS_BILLING_", []string{"SCOPES"}) {
		opts = append(opts, oauthclient.Scopes("invoices:read"))
	}
	return fxsvc.ClientCredentials("billing", opts...)
}

// anySet reports whether prefix+name is set to a non-empty value for one
// of names, or for any name when names is nil.
func anySet(prefix string, names []string) bool {
	if names == nil {
		for _, kv := range os.Environ() {
			if k, v, _ := strings.Cut(kv, "="); strings.HasPrefix(k, prefix) && v != "" {
				return true
			}
		}
		return false
	}
	for _, n := range names {
		if os.Getenv(prefix+n) != "" {
			return true
		}
	}
	return false
}

// errOutboundNotConfigured is a permanent misconfiguration, not an outage:
// it answers 500 (retrying cannot help) and is logged with what to set.
var errOutboundNotConfigured = errors.New("example: /billing needs an outbound token client: set SVC_OAUTHCLIENT_ISSUER (or SVC_OAUTHCLIENT_TOKEN_ENDPOINT), SVC_OAUTHCLIENT_CLIENT_ID and SVC_OAUTHCLIENT_CLIENT_SECRET")

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

// ServeHTTP answers errors in the app's format: a token failure by its
// kind (503 upstream-token-unavailable with Retry-After, 502
// upstream-token-refused), a missing configuration as a logged 500.
func (b *billing) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	svcerrors.Handler(b.serve).ServeHTTP(w, r)
}

func (b *billing) serve(w http.ResponseWriter, r *http.Request) error {
	if b.client == nil || b.server == nil {
		return errOutboundNotConfigured
	}
	req, err := http.NewRequestWithContext(r.Context(), http.MethodGet, "http://"+b.server.Addr()+"/invoices", nil)
	if err != nil {
		return fmt.Errorf("example: billing request: %w", err)
	}
	resp, err := b.client.Do(req)
	if err != nil {
		if _, known := svcerrors.Describe(err); known {
			return err // an outbound token failure, answered by its kind
		}
		svcerrors.Respond(w, r, http.StatusBadGateway, "The billing API could not be reached.", nil)
		return nil
	}
	defer resp.Body.Close()
	w.Header().Set("Content-Type", resp.Header.Get("Content-Type"))
	w.WriteHeader(resp.StatusCode)
	_, _ = io.Copy(w, resp.Body)
	return nil
}

// invoices is the downstream API: it needs the invoices:read scope, which
// the service's own token carries.
func invoices(w http.ResponseWriter, r *http.Request) {
	p, _ := authn.PrincipalFrom(r.Context())
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"caller":%q,"invoices":[{"id":"inv-1","amount":42}]}`+"\n", p.Subject)
}
