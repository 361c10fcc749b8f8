package metrics

import (
	"fmt"

	"github.com/svckit/svc/modules/metrics/internal/registry"
)

// allExportersPackage links every exporter: for apps that let the
// environment choose any of them.
const allExportersPackage = "github.com/svckit/svc/modules/metrics/allexporters"

// exporterPackages are the packages whose import links each exporter. The
// core links none: an app that never exports metrics over gRPC should not
// carry gRPC.
var exporterPackages = map[Exporter]string{
	ExporterOTLPHTTP:   "github.com/svckit/svc/modules/metrics/otlphttp",
	ExporterOTLPGRPC:   "github.com/svckit/svc/modules/metrics/otlpgrpc",
	ExporterPrometheus: "github.com/svckit/svc/modules/metrics/prometheus",
	ExporterConsole:    "github.com/svckit/svc/modules/metrics/console",
}

func init() {
	registry.StateOf = func(m any) any {
		if c, ok := m.(*Metrics); ok && c != nil {
			return c.expState
		}
		return nil
	}
}

// linkedFactory finds the factory of the resolved exporter. An exporter the
// binary does not link fails construction, not Open: the fix is an import,
// and the message names both the setting that chose the exporter and the
// import to add.
func linkedFactory(cfg Config, asked Exporter, src sources) (registry.Factory, error) {
	if cfg.Exporter == ExporterNone {
		return registry.Factory{}, nil
	}
	if f, ok := registry.Lookup(string(cfg.Exporter)); ok {
		return f, nil
	}
	fix := fmt.Sprintf("add import _ %q (or _ %q to link every exporter)", exporterPackages[cfg.Exporter], allExportersPackage)
	if p, _ := ParseExporter(string(asked)); asked == "" || p == ExporterAuto {
		// auto chose otlp-http because an endpoint is set: the endpoint's
		// setting is the one the user wrote.
		return registry.Factory{}, &ConfigError{Setting: src.name("endpoint"), Field: "endpoint",
			Reason: fmt.Sprintf("an endpoint makes exporter auto resolve to %s, which is not linked into this binary; %s", cfg.Exporter, fix)}
	}
	return registry.Factory{}, &ConfigError{Setting: src.name("exporter"), Field: "exporter",
		Reason: fmt.Sprintf("the %s exporter is not linked into this binary; %s", cfg.Exporter, fix)}
}
