package authn

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/svckit/svc/modules/authn/bearer"
	"github.com/svckit/svc/secret"
)

// metadataPrefix is the RFC 9728 well-known path.
const metadataPrefix = "/.well-known/oauth-protected-resource"

// metadata is the RFC 9728 protected-resource metadata document. Nothing in
// it is read from the request: resource is the URL clients call as they see
// it, configured once.
type metadata struct {
	path string
	url  string
	body []byte
}

type metadataDoc struct {
	Resource               string   `json:"resource"`
	AuthorizationServers   []string `json:"authorization_servers"`
	BearerMethodsSupported []string `json:"bearer_methods_supported"`
	ScopesSupported        []string `json:"scopes_supported,omitempty"`
	// What the gate enforces of sender-constrained tokens
	// (gate_metadata_binding.go).
	DPoPSigningAlgs     []string `json:"dpop_signing_alg_values_supported,omitempty"`
	DPoPBoundRequired   bool     `json:"dpop_bound_access_tokens_required,omitempty"`
	TLSCertificateBound bool     `json:"tls_client_certificate_bound_access_tokens,omitempty"`
}

// ResourceError is a Resource setting the gate refuses.
type ResourceError struct {
	Resource string
	Problem  string
}

func (e *ResourceError) Error() string {
	return fmt.Sprintf("authn: Resource(%q) %s", e.Resource, e.Problem)
}

func newMetadata(cfg gateConfig, v bearer.Verifier) (*metadata, error) {
	u, err := url.Parse(cfg.resource)
	// Errors name the resource without any credentials it carries.
	res := secret.URL(cfg.resource).String()
	switch {
	case err != nil:
		return nil, &ResourceError{res, "is not a URL"}
	case u.Scheme != "https":
		return nil, &ResourceError{res, "must be an https URL, as clients call it behind any proxy"}
	case u.Host == "":
		return nil, &ResourceError{res, "has no host"}
	case u.Fragment != "" || strings.Contains(cfg.resource, "#"):
		return nil, &ResourceError{res, "must not have a fragment"}
	case strings.ContainsAny(u.Path, "{}") || strings.ContainsAny(u.RawPath, "{}"):
		return nil, &ResourceError{res, "must not hold a brace in its path (a route template is not a resource)"}
	case u.User != nil:
		return nil, &ResourceError{res, "must not carry credentials"}
	case u.RawQuery != "":
		return nil, &ResourceError{res, "must not have a query"}
	}
	servers := cfg.authorizationServers
	if len(servers) == 0 {
		if il, ok := v.(interface{ Issuers() []string }); ok {
			servers = il.Issuers()
		}
	}
	if len(servers) == 0 {
		return nil, &ResourceError{res, "needs authn.AuthorizationServers(...): the verifier names no issuers"}
	}
	path := u.EscapedPath()
	if path == "/" {
		path = ""
	}
	doc := metadataDoc{
		Resource:               cfg.resource,
		AuthorizationServers:   servers,
		BearerMethodsSupported: []string{"header"},
		ScopesSupported:        cfg.scopes,
	}
	cfg.bindingMetadata(&doc)
	body, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("authn: encoding protected-resource metadata: %w", err)
	}
	m := &metadata{path: metadataPrefix + path, body: body}
	m.url = u.Scheme + "://" + u.Host + m.path
	return m, nil
}

// at reports whether u is the metadata URL's path. The path is compared
// escaped, as clients form it from the resource (RFC 9728 §3.1): a
// resource path such as /a%20b decodes to "/a b" and would never match.
func (m *metadata) at(u *url.URL) bool {
	return strings.HasPrefix(u.Path, metadataPrefix) && u.EscapedPath() == m.path
}

// ServeHTTP answers the metadata path for every request there: readable
// from any origin, never authenticated.
func (m *metadata) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", "*")
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		h.Set("Content-Type", "application/json")
		h.Set("Cache-Control", "max-age=3600")
		w.WriteHeader(http.StatusOK)
		if r.Method == http.MethodGet {
			_, _ = w.Write(m.body)
		}
	case http.MethodOptions:
		h.Set("Access-Control-Allow-Methods", "GET, HEAD, OPTIONS")
		h.Set("Allow", "GET, HEAD, OPTIONS")
		w.WriteHeader(http.StatusNoContent)
	default:
		h.Set("Allow", "GET, HEAD, OPTIONS")
		http.Error(w, http.StatusText(http.StatusMethodNotAllowed), http.StatusMethodNotAllowed)
	}
}
