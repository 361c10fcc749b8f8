package oauthclient

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// maxDocument caps the metadata and token responses read into memory.
const maxDocument = 1 << 20

// metadata is what the client uses from the authorization server metadata.
type metadata struct {
	tokenEndpoint string
	authMethods   []string // token_endpoint_auth_methods_supported; nil when absent
}

// metadata returns the server metadata, running discovery when it is not
// known yet. Only one discovery runs at a time, and a failed one is
// remembered for the whole client. alive is as for memo.active.
func (c *Client) metadata(ctx context.Context, alive time.Time) (*metadata, error) {
	if m := c.meta.Load(); m != nil {
		return m, nil
	}
	c.discoMu.Lock()
	defer c.discoMu.Unlock()
	if m := c.meta.Load(); m != nil {
		return m, nil
	}
	if err := c.memory.check("", c.clock.Now(), alive); err != nil {
		return nil, err
	}
	m, err := c.discover(ctx)
	if err != nil {
		if errors.Is(err, ErrClosed) {
			return nil, err
		}
		var ue *UnavailableError
		if !errors.As(err, &ue) {
			// A wrong issuer will not fix itself within the interval either,
			// but remembering it keeps a misconfigured client from calling
			// the server on every request.
			now := c.clock.Now()
			c.memory.rememberClient(err, now, now.Add(c.retryInterval), false)
			return nil, err
		}
		c.rememberUnavailable(ue)
		return nil, ue
	}
	c.meta.Store(m)
	return m, nil
}

// wellKnownURLs lists where the metadata may be: RFC 8414 inserts the
// well-known path before the issuer's path; OpenID Connect Discovery appends
// it.
func wellKnownURLs(issuer string) []string {
	u, err := url.Parse(issuer)
	if err != nil {
		return nil
	}
	path := strings.TrimSuffix(u.Path, "/")
	rfc := *u
	rfc.Path = "/.well-known/oauth-authorization-server" + path
	rfc.RawPath = ""
	oidc := *u
	oidc.Path = path + "/.well-known/openid-configuration"
	oidc.RawPath = ""
	return []string{rfc.String(), oidc.String()}
}

type metadataDocument struct {
	Issuer      string   `json:"issuer"`
	Token       string   `json:"token_endpoint"`
	AuthMethods []string `json:"token_endpoint_auth_methods_supported"`
	// Aliases are the endpoints for clients presenting a certificate
	// (RFC 8705 §5).
	Aliases struct {
		Token string `json:"token_endpoint"`
	} `json:"mtls_endpoint_aliases"`
}

func (c *Client) discover(ctx context.Context) (*metadata, error) {
	var statuses []string
	for _, u := range wellKnownURLs(c.issuer) {
		body, status, err := c.get(ctx, u)
		if err != nil {
			return nil, err
		}
		switch {
		case status == http.StatusOK:
			return c.readMetadata(body)
		case status >= 500 || status == http.StatusRequestTimeout || status == http.StatusTooManyRequests:
			return nil, &UnavailableError{Reason: reasonServerError, Status: status}
		}
		statuses = append(statuses, strconv.Itoa(status))
	}
	return nil, &DiscoveryError{Issuer: c.issuer, Reason: "no metadata at /.well-known/oauth-authorization-server or /.well-known/openid-configuration (status " + strings.Join(statuses, ", ") + "): check the issuer URL"}
}

func (c *Client) readMetadata(body []byte) (*metadata, error) {
	var doc metadataDocument
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, &DiscoveryError{Issuer: c.issuer, Reason: "the metadata document is not a JSON object"}
	}
	if doc.Issuer != c.issuer {
		return nil, &DiscoveryError{Issuer: c.issuer, Reason: "the metadata names another issuer " + strconv.Quote(clip(doc.Issuer, 200)) + ": set the issuer exactly as the server spells it"}
	}
	if doc.Token == "" {
		return nil, &DiscoveryError{Issuer: c.issuer, Reason: "the metadata has no token_endpoint"}
	}
	token, setting := doc.Token, "token_endpoint"
	if c.cert != nil && doc.Aliases.Token != "" {
		// A server may take certificates on other hosts than the rest
		// (RFC 8705 §5): a client presenting one goes there.
		token, setting = doc.Aliases.Token, "mtls_endpoint_aliases.token_endpoint"
	}
	if err := checkURL(token, setting, c.allowHTTP); err != nil {
		return nil, &DiscoveryError{Issuer: c.issuer, Reason: "the metadata's " + setting + " is unusable: " + err.(*ConfigError).Problem}
	}
	return &metadata{tokenEndpoint: token, authMethods: doc.AuthMethods}, nil
}

// get fetches a document with the client's timeout.
func (c *Client) get(ctx context.Context, u string) ([]byte, int, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, 0, &DiscoveryError{Issuer: c.issuer, Reason: "the issuer does not form a metadata URL"}
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, 0, c.transportError(ctx, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxDocument+1))
	if err != nil {
		return nil, 0, c.transportError(ctx, err)
	}
	if len(body) > maxDocument {
		return nil, 0, &DiscoveryError{Issuer: c.issuer, Reason: "the metadata document is over 1 MiB"}
	}
	return body, resp.StatusCode, nil
}

// clip shortens s for an error message.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
