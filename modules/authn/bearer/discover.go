package bearer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/svckit/svc/internal/urlshape"
	"github.com/svckit/svc/secret"
)

// Discover returns a verifier for the tokens of issuer, opened and holding
// its keys, as go-oidc's NewProvider does: it runs discovery and fetches
// the key set now, within ctx, and the verifier then refreshes its keys in
// the background until Close. It is New followed by Open and a wait for the
// first keys; an app whose lifecycle opens its verifier (fxsvc.Authn) uses
// New instead, so that an unreachable provider does not stop it starting.
//
// It refuses what New refuses (a *ConfigError), and returns an error
// wrapping ErrKeysUnavailable, saying why, when discovery or the first key
// fetch fails or ctx ends first; it leaves nothing running then.
func Discover(ctx context.Context, issuer, audience string, opts ...VerifierOption) (*JWTVerifier, error) {
	v := New(issuer, audience, opts...)
	if err := v.Open(ctx); err != nil {
		return nil, err
	}
	fail := func(err error) (*JWTVerifier, error) {
		_ = v.Close(context.Background())
		return nil, err
	}
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		err := v.Ready()
		switch {
		case err == nil:
			return v, nil
		case !errors.Is(err, errStillLoading):
			return fail(err)
		}
		select {
		case <-ctx.Done():
			return fail(fmt.Errorf("%w (%w)", err, ctx.Err()))
		case <-tick.C:
		}
	}
}

// New returns a verifier for the tokens of issuer, its keys found by
// OpenID Connect discovery once it is opened (the app's lifecycle opens it:
// fxsvc.Authn does; Discover opens it at once) (`{issuer}/.well-known/openid-configuration`, falling
// back to RFC 8414 `/.well-known/oauth-authorization-server{path}`).
// The discovery document's `issuer` must equal issuer exactly and its
// `jwks_uri` must be https; keys then load from there as with JWKSURL.
// Discovery runs on the key loader's goroutine after Open, so an
// unreachable provider never stops the app: Verify answers
// ErrKeysUnavailable until keys arrive. A failed discovery or key fetch is
// logged (see Logger) at most once per kind per minute, with
// the URL asked and the cause; the first success after it, once.
//
// issuer must be an https URL with no query or fragment (http only on a
// loopback host, for tests and development). Tokens must carry `iss` equal
// to issuer and an `aud` containing audience. Nothing panics on bad input:
// a bad issuer, an empty audience or an invalid option is returned as a
// *ConfigError from Open and from every Verify.
func New(issuer, audience string, opts ...VerifierOption) *JWTVerifier {
	v := newVerifier(issuer, audience, opts)
	v.cfg.discovers = true
	// A template's URL is checked with a tenant in place of {tenantid}.
	concrete := strings.Replace(issuer, tenantPlaceholder, "tenant", 1)
	if err := urlshape.Fetchable(concrete); err != nil {
		v.cfg.refuse("issuer", err.Error())
	} else if u, _ := url.Parse(concrete); u.RawQuery != "" || u.ForceQuery {
		v.cfg.refuse("issuer", "has a query")
	}
	tenants := newTenantSet(v, opts)
	v.finish()
	if tenants != nil {
		// Each tenant is discovered as its own issuer; the template
		// holds their verifiers instead of keys.
		v.tenants, v.keys = tenants, tenants
		return v
	}
	d := &discovery{issuer: issuer, client: v.client}
	// Introspect("") takes its endpoint from the document: a document
	// without a usable one fails the discovery (introspectionFrom).
	d.introspects = v.intro != nil && v.intro.endpoint == ""
	v.discovery = d
	if v.err == nil {
		v.keys = newKeyManager(d.fetchKeys(&v.cfg), &v.cfg, &v.set)
	}
	return v
}

// discovery finds the JWKS URL once, then keeps it.
type discovery struct {
	issuer string
	client *http.Client
	// introspects is set when Introspect was given no endpoint: the
	// document must then name a usable introspection_endpoint.
	introspects bool

	mu               sync.Mutex
	docURL           string // the discovery URL that answered
	jwksURI          string
	introspectionURI string // introspection_endpoint, when valid; read by Introspect
}

// oidcURL is where OpenID Connect Discovery 1.0 §4 puts the document.
func (d *discovery) oidcURL() string {
	return strings.TrimSuffix(d.issuer, "/") + "/.well-known/openid-configuration"
}

// rfc8414URL is where RFC 8414 §3.1 puts it: the well-known segment goes
// between the host and the issuer's path.
func (d *discovery) rfc8414URL() string {
	u, err := url.Parse(d.issuer)
	if err != nil {
		return ""
	}
	u.Path = "/.well-known/oauth-authorization-server" + strings.TrimSuffix(u.Path, "/")
	u.RawPath = ""
	return u.String()
}

func (d *discovery) url() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.docURL != "" {
		return d.docURL
	}
	return d.oidcURL()
}

func (d *discovery) fetchKeys(cfg *verifierConfig) fetchFunc {
	return func(ctx context.Context) ([]*heldKey, time.Duration, error) {
		d.mu.Lock()
		jwksURI := d.jwksURI
		d.mu.Unlock()
		if jwksURI == "" {
			docURL, uri, introspection, err := d.discover(ctx)
			if err != nil {
				return nil, 0, &loadError{stage: "discovery", url: docURL, err: err}
			}
			d.mu.Lock()
			d.docURL, d.jwksURI, d.introspectionURI = docURL, uri, introspection
			d.mu.Unlock()
			jwksURI = uri
		}
		set, maxAge, err := fetchJWKS(ctx, d.client, jwksURI, cfg.logger)
		if err != nil {
			return nil, 0, &loadError{stage: "jwks", url: jwksURI, err: err}
		}
		return set, maxAge, nil
	}
}

// discover reads the discovery document and returns its URL, jwks_uri
// and introspection_endpoint (empty when the verifier does not take it
// from the document). On failure the URL is the last one asked, for the
// loader's log.
func (d *discovery) discover(ctx context.Context) (string, string, string, error) {
	docURL := d.oidcURL()
	body, _, err := fetchDocument(ctx, d.client, docURL, "application/json")
	var status *fetchStatusError
	if errors.As(err, &status) && status.Status == http.StatusNotFound {
		docURL = d.rfc8414URL()
		body, _, err = fetchDocument(ctx, d.client, docURL, "application/json")
	}
	if err != nil {
		return docURL, "", "", fmt.Errorf("discovery: %w", err)
	}
	var doc struct {
		Issuer        *string `json:"issuer"`
		JWKSURI       *string `json:"jwks_uri"`
		Introspection string  `json:"introspection_endpoint"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return docURL, "", "", fmt.Errorf("discovery %s: not a JSON document: %w", docURL, err)
	}
	if doc.Issuer == nil || *doc.Issuer != d.issuer {
		got := "none"
		if doc.Issuer != nil {
			got = quoteSetting(*doc.Issuer)
		}
		return docURL, "", "", fmt.Errorf("discovery %s: document names issuer %s, want %s exactly (check the issuer setting)",
			docURL, got, quoteSetting(d.issuer))
	}
	if doc.JWKSURI == nil {
		return docURL, "", "", fmt.Errorf("discovery %s: no jwks_uri", docURL)
	}
	if err := urlshape.Fetchable(*doc.JWKSURI); err != nil {
		return docURL, "", "", fmt.Errorf("discovery %s: jwks_uri %w", docURL, err)
	}
	introspection, err := d.introspectionFrom(docURL, doc.Introspection)
	if err != nil {
		return docURL, "", "", err
	}
	return docURL, *doc.JWKSURI, introspection, nil
}

// introspectionFrom checks the document's introspection_endpoint when
// Introspect was given none: a document without one (Ory Hydra serves
// introspection on its admin port only, and its public document names
// none), or with one that could not be asked safely, fails the discovery,
// so that Ready says what is missing instead of every opaque token being
// answered 503 while the verifier looks ready.
func (d *discovery) introspectionFrom(docURL, endpoint string) (string, error) {
	if !d.introspects {
		return "", nil
	}
	if endpoint == "" {
		return "", fmt.Errorf("discovery %s: no introspection_endpoint, and bearer.Introspect was given none: pass the introspection endpoint to bearer.Introspect (Ory Hydra serves it on its admin port only: https://<admin host>/admin/oauth2/introspect)", docURL)
	}
	if err := checkIntrospectionURL(endpoint); err != nil {
		return "", fmt.Errorf("discovery %s: introspection_endpoint %s %w: pass a usable endpoint to bearer.Introspect", docURL, quoteSetting(secret.URL(endpoint).String()), err)
	}
	return endpoint, nil
}
