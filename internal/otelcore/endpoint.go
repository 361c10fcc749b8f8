package otelcore

import (
	"encoding/base64"
	"fmt"
	"net/url"
	"strings"

	"github.com/svckit/svc/secret"
)

// Fault is a refused setting: Field is the setting's name (e.g.
// "endpoint"); Missing, when set, is the unset partner the fix is to set.
// Reason never quotes a secret.
type Fault struct {
	Field, Missing, Reason string
}

// Basic is the Basic credential part of an exporter config.
type Basic struct {
	Endpoint secret.URL
	Username string
	Password secret.String
}

// AuthorizationHeader returns "Basic base64(username:password)" (RFC 7617)
// from Username and Password, or from credentials embedded in Endpoint when
// those are empty; "" when no Basic credentials are configured.
func (b Basic) AuthorizationHeader() secret.String {
	user, pass := b.Username, b.Password.Value()
	if user == "" && pass == "" {
		u, err := url.Parse(b.Endpoint.Value())
		if err != nil || u.User == nil {
			return ""
		}
		user = u.User.Username()
		pass, _ = u.User.Password()
	}
	return secret.String("Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pass)))
}

// CheckEndpoint refuses an endpoint the exporters could not use, and
// credentials given both in the URL and as Basic settings. It reports
// whether the URL carries credentials. The reasons never quote the URL:
// it may hold credentials.
func (b Basic) CheckEndpoint() (bool, *Fault) {
	fail := func(reason string) (bool, *Fault) { return false, &Fault{Field: "endpoint", Reason: reason} }
	u, err := url.Parse(b.Endpoint.Value())
	if err != nil || u.Host == "" {
		return fail("not an absolute http or https URL with a host")
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fail(fmt.Sprintf("scheme %q is not http or https", u.Scheme))
	}
	if u.User != nil && (b.Username != "" || b.Password != "") {
		return fail("the URL carries credentials and Basic credentials are set too; keep one")
	}
	if u.User != nil && strings.Contains(u.User.Username(), ":") {
		return fail("the user name in the URL holds a colon (RFC 7617)")
	}
	return u.User != nil, nil
}

// CheckBasicAuth refuses a user name without a password or the reverse,
// and a user name holding a colon (RFC 7617). Credentials taken from the
// endpoint URL (fromEndpoint) were checked by CheckEndpoint.
func (b Basic) CheckBasicAuth(fromEndpoint bool) *Fault {
	user, pass := b.Username != "", b.Password != ""
	switch {
	case fromEndpoint:
		return nil
	case user && !pass:
		return &Fault{Field: "basic_auth_username", Missing: "basic_auth_password", Reason: "a Basic user name is set without a password; set both or neither"}
	case pass && !user:
		return &Fault{Field: "basic_auth_password", Missing: "basic_auth_username", Reason: "a Basic password is set without a user name; set both or neither"}
	case user && strings.Contains(b.Username, ":"):
		return &Fault{Field: "basic_auth_username", Reason: "a Basic user name must not hold a colon (RFC 7617)"}
	}
	return nil
}

// HTTPEndpoint is the otlp-http URL of endpoint, given by setting, for
// signal ("METRICS" or "TRACES") with its path (e.g. "/v1/metrics").
// OTEL_EXPORTER_OTLP_<signal>_ENDPOINT is used as is, a missing path read as
// "/" (the OpenTelemetry specification: never the signal path); every other
// setting goes through WithSignalPath.
func HTTPEndpoint(endpoint secret.URL, setting, signal, path string) secret.URL {
	if setting != "OTEL_EXPORTER_OTLP_"+signal+"_ENDPOINT" {
		return WithSignalPath(endpoint, setting == EnvOTLPEndpoint, path)
	}
	u, err := url.Parse(endpoint.Value())
	if err != nil || u.Path != "" {
		return endpoint
	}
	u.Path = "/"
	return secret.URL(u.String())
}

// WithSignalPath gives an otlp-http endpoint its signal path (e.g.
// "/v1/metrics"): always after a base URL from OTEL_EXPORTER_OTLP_ENDPOINT
// (as the OpenTelemetry specification says), and when an explicit endpoint
// has no path. An endpoint that does not parse is returned as it is.
func WithSignalPath(ep secret.URL, base bool, path string) secret.URL {
	u, err := url.Parse(ep.Value())
	if err != nil {
		return ep
	}
	if base || u.Path == "" || u.Path == "/" {
		u.Path = strings.TrimSuffix(u.Path, "/") + path
		u.RawPath = ""
	}
	return secret.URL(u.String())
}
