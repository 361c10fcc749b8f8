package tracing

import (
	"fmt"
	"strings"
	"time"

	"github.com/svckit/svc/internal/otlpconf"
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
	if err := otlpconf.CheckHeaders(c.Headers); err != nil {
		return c, src.fail("headers", "%v", err)
	}
	if otlpconf.HasHeader(c.Headers, "authorization") && c.AuthorizationHeader().IsSet() {
		return c, src.fail("headers", "an Authorization header and Basic credentials are both set; keep one")
	}
	if err := src.fault(otlpconf.CheckServiceName(c.ServiceName)); err != nil {
		return c, err
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
		c.Endpoint = otlpconf.HTTPEndpoint(c.Endpoint, src.name("endpoint"), "TRACES", "/v1/traces")
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

// checkEndpoint refuses an endpoint the exporters could not use and
// reports whether it carries credentials.
func checkEndpoint(c Config, src sources) (bool, error) {
	user, f := c.basic().CheckEndpoint()
	return user, src.fault(f)
}

func checkBasicAuth(c Config, src sources, fromEndpoint bool) error {
	return src.fault(c.basic().CheckBasicAuth(fromEndpoint))
}

// fault names the setting of a refusal of the shared rules the way it
// was given.
func (s sources) fault(f *otlpconf.Fault) error {
	switch {
	case f == nil:
		return nil
	case f.Missing != "":
		return s.failMissing(f.Field, f.Missing, f.Reason)
	}
	return s.fail(f.Field, "%s", f.Reason)
}
