package tracing

import (
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/svckit/svc/secret"
)

// resolve validates c, fills defaults and resolves auto. It never reads the
// environment: the callers merged it in before.
func resolve(c Config, src sources) (Config, error) {
	var err error
	if c.ExportTimeout, err = positive(c.ExportTimeout, DefaultExportTimeout, "export_timeout", src); err != nil {
		return c, err
	}
	if c.ShutdownTimeout, err = positive(c.ShutdownTimeout, DefaultShutdownTimeout, "shutdown_timeout", src); err != nil {
		return c, err
	}
	if c.Sampler, c.SamplerRatio, err = resolveSampler(c.Sampler, c.SamplerRatio, src); err != nil {
		return c, err
	}
	if c.Exporter == "" {
		c.Exporter = ExporterAuto
	}
	if c.Exporter, err = ParseExporter(string(c.Exporter)); err != nil {
		return c, src.fail("exporter", "%v", err)
	}
	var endpointUser bool
	if c.Endpoint.IsSet() {
		if endpointUser, err = checkEndpoint(c, src); err != nil {
			return c, err
		}
	}
	if err := checkBasicAuth(c, src, endpointUser); err != nil {
		return c, err
	}
	if err := checkHeaders(c.Headers); err != nil {
		return c, src.fail("headers", "%v", err)
	}
	if c.hasHeader("authorization") && c.AuthorizationHeader().IsSet() {
		return c, src.fail("headers", "an Authorization header and Basic credentials are both set; keep one")
	}
	for k := range c.ResourceAttributes {
		if strings.TrimSpace(k) == "" {
			return c, src.fail("resource_attributes", "an attribute has an empty key")
		}
	}
	auto := c.Exporter == ExporterAuto
	if auto {
		c.Exporter = ExporterNone
		if c.Endpoint.IsSet() {
			c.Exporter = ExporterOTLPHTTP
		}
	}
	if err := checkLinked(c.Exporter, auto, src); err != nil {
		return c, err
	}
	if c.Exporter == ExporterOTLPHTTP && c.Endpoint.IsSet() {
		c.Endpoint = withSignalPath(c.Endpoint, src.name("endpoint") == envOTLPEndpoint)
	}
	return c, nil
}

// checkLinked refuses an exporter whose leaf package the binary does not
// import: its factory never registered. When auto picked the exporter, the
// error names the endpoint's setting if the exporter was never set.
func checkLinked(e Exporter, auto bool, src sources) error {
	pkg, linkable := leafPackages[e]
	if !linkable {
		return nil
	}
	if _, ok := factoryFor(e); ok {
		return nil
	}
	err := &ConfigError{Setting: src.name("exporter"), Field: "exporter",
		Reason: fmt.Sprintf("the %s exporter is not linked into this binary; add import _ %q to the main package", e, pkg)}
	if auto {
		err.Reason += " (exporter auto picks otlp-http because an endpoint is set)"
		if src.fromConfig("exporter") {
			err.Setting, err.Field = src.name("endpoint"), "endpoint"
		}
	}
	return err
}

func positive(d, def time.Duration, spec string, src sources) (time.Duration, error) {
	if d == 0 && src.fromConfig(spec) {
		return def, nil
	}
	if d <= 0 {
		return d, src.fail(spec, "must be a positive duration, got %v", d)
	}
	return d, nil
}

// checkEndpoint refuses an endpoint the exporters could not use, and says
// whether it carries credentials. The reasons never quote the URL: it may
// hold credentials.
func checkEndpoint(c Config, src sources) (bool, error) {
	u, err := url.Parse(c.Endpoint.Value())
	if err != nil || u.Host == "" {
		return false, src.fail("endpoint", "not an absolute http or https URL with a host")
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return false, src.fail("endpoint", "scheme %q is not http or https", u.Scheme)
	}
	if u.User != nil && (c.BasicAuthUsername != "" || c.BasicAuthPassword.IsSet()) {
		return false, src.fail("endpoint", "the URL carries credentials and Basic credentials are set too; keep one")
	}
	if u.User != nil && strings.Contains(u.User.Username(), ":") {
		return false, src.fail("endpoint", "the user name in the URL holds a colon (RFC 7617)")
	}
	return u.User != nil, nil
}

func checkBasicAuth(c Config, src sources, fromEndpoint bool) error {
	user, pass := c.BasicAuthUsername != "", c.BasicAuthPassword.IsSet()
	switch {
	case fromEndpoint:
		return nil
	case user && !pass:
		return src.failMissing("basic_auth_username", "basic_auth_password", "a Basic user name is set without a password; set both or neither")
	case pass && !user:
		return src.failMissing("basic_auth_password", "basic_auth_username", "a Basic password is set without a user name; set both or neither")
	case user && strings.Contains(c.BasicAuthUsername, ":"):
		return src.fail("basic_auth_username", "a Basic user name must not hold a colon (RFC 7617)")
	}
	return nil
}

func (c Config) hasHeader(name string) bool {
	for k := range c.Headers {
		if strings.EqualFold(k, name) {
			return true
		}
	}
	return false
}

// withSignalPath gives an otlp-http endpoint its /v1/traces path: always
// after a base URL from OTEL_EXPORTER_OTLP_ENDPOINT (as the OpenTelemetry
// specification says), and when an explicit endpoint has no path.
func withSignalPath(ep secret.URL, base bool) secret.URL {
	u, err := url.Parse(ep.Value())
	if err != nil {
		return ep
	}
	if base || u.Path == "" || u.Path == "/" {
		u.Path = strings.TrimSuffix(u.Path, "/") + "/v1/traces"
		u.RawPath = ""
	}
	return secret.URL(u.String())
}
