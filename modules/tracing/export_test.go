package tracing

import (
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/svckit/svc/internal/otelcore"
	"github.com/svckit/svc/secret"
)

// Resolved returns the configuration New resolved, without opening.
func (t *Tracing) Resolved() Config { return t.cfg.clone() }

// OwnsGlobalState reports whether t is open, active, installed, and no
// later component took over.
func (t *Tracing) OwnsGlobalState() bool {
	t.c.Mu.Lock()
	slot := t.slot
	t.c.Mu.Unlock()
	return slot != nil && current.Load() == slot && globalIsOurs()
}

// SavedGlobal returns the global provider and propagator the first open
// component found, which the last one to close restores.
func SavedGlobal() (trace.TracerProvider, propagation.TextMapPropagator) {
	installer.Mu.Lock()
	defer installer.Mu.Unlock()
	return base, basePropagator
}

// Current returns the component the global provider forwards to, or nil.
func Current() *Tracing {
	if t := current.Load(); t != nil {
		return t.owner
	}
	return nil
}

// GlobalProvider returns the provider the global one forwards to, or nil.
func GlobalProvider() *sdktrace.TracerProvider {
	if t := current.Load(); t != nil {
		return t.tp
	}
	return nil
}

// AuthorizationHeader is the Basic authorization c's exports send.
func AuthorizationHeader(c Config) secret.String {
	return otelcore.Basic{Endpoint: c.Endpoint, Username: c.BasicAuthUsername, Password: c.BasicAuthPassword}.AuthorizationHeader()
}
