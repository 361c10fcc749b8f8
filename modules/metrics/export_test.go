package metrics

import (
	"go.opentelemetry.io/otel/metric"

	"github.com/svckit/svc/internal/otelcore"
	"github.com/svckit/svc/secret"
)

// ResolvedConfig exposes the resolved configuration without opening the
// component, so configuration tests need no exporter.
func ResolvedConfig(m *Metrics) Config { return m.cfg }

// Internals the tests check.
var (
	SecondsBuckets = secondsBuckets
	FuncName       = funcName
	ErrorType      = errorType
	Current        = currentComponent
)

// GlobalProvider returns the provider the bridge forwards to, or nil.
func GlobalProvider() metric.MeterProvider {
	if t := current.Load(); t != nil {
		return t.mp
	}
	return nil
}

// SavedGlobal returns the global provider the first open component found,
// which the last one to close restores.
func SavedGlobal() metric.MeterProvider {
	installer.Mu.Lock()
	defer installer.Mu.Unlock()
	return base
}

// OwnsGlobalState reports whether m is open, active, installed, and no
// later component took over.
func (m *Metrics) OwnsGlobalState() bool {
	m.c.Mu.Lock()
	slot := m.slot
	m.c.Mu.Unlock()
	return slot != nil && current.Load() == slot && globalIsOurs()
}

// AuthorizationHeader is the Basic authorization c's exports send.
func AuthorizationHeader(c Config) secret.String {
	return otelcore.Basic{Endpoint: c.Endpoint, Username: c.BasicAuthUsername, Password: c.BasicAuthPassword}.AuthorizationHeader()
}
