package metrics

import (
	"context"
	"errors"
	"time"

	"go.opentelemetry.io/otel/metric"
	"go.uber.org/zap"
)

// Open builds the exporter and provider and installs it process-wide: the
// global meter provider (otel.GetMeterProvider) forwards to it and the
// measure wrappers record into it. The provider found there before is
// remembered and restored by Close. An auto-disabled component (exporter
// none) installs nothing and stays inactive. Open refuses a second call.
func (m *Metrics) Open(ctx context.Context) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.state != stateNew {
		return ErrAlreadyOpen
	}
	if m.cfg.Exporter == ExporterNone {
		m.state = stateOpen
		return nil
	}
	p, err := m.newProvider(ctx)
	if err != nil {
		return err
	}
	m.provider = p
	m.slot = &target{mp: p, owner: m}
	m.previous = install(m.slot)
	m.state = stateOpen
	return nil
}

// Close uninstalls the provider, restores the global meter provider Open
// found, and shuts the provider down, flushing pending metrics within
// shutdown_timeout (or ctx's deadline, if sooner). A flush that runs out is
// abandoned, and one the exporter fails (a collector refusing, or
// unreachable) is given up: either way a warning is logged (secrets
// redacted), pending metrics may be lost, and Close returns nil, so the
// app's stop proceeds and a clean exit stays clean. Close on a component
// never opened, or closed, does nothing.
func (m *Metrics) Close(ctx context.Context) error {
	m.mu.Lock()
	if m.state != stateOpen {
		m.mu.Unlock()
		return nil
	}
	m.state = stateClosed
	p, slot := m.provider, m.slot
	m.slot = nil
	m.mu.Unlock()
	if p == nil {
		return nil
	}
	// Uninstall first, so nothing records into a provider being shut down.
	// OpenTelemetry's errors still come here until it is: the final
	// export's are this component's.
	uninstall(slot)
	defer removeOTelLogging(m)
	sctx, cancel := context.WithTimeout(ctx, m.cfg.ShutdownTimeout)
	defer cancel()
	start := time.Now()
	err := p.Shutdown(sctx)
	if err == nil {
		return nil
	}
	if sctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) {
		m.log.Warn("metrics flush abandoned: shutdown_timeout reached; pending metrics may be dropped",
			zap.String("exporter", string(m.cfg.Exporter)),
			zap.Duration("shutdown_timeout", m.cfg.ShutdownTimeout),
			zap.Duration("waited", time.Since(start)))
		return nil
	}
	// The last export failing is no reason to fail the stop: the data is
	// lost either way, and an exit status of 1 would tell an orchestrator
	// that the service itself misbehaved.
	m.log.Warn("metrics flush failed; pending metrics may be dropped",
		zap.String("exporter", string(m.cfg.Exporter)),
		zap.Error(redact(err, m.cfg)))
	return nil
}

// Previous returns the global meter provider Open found and Close restores
// (nil before Open and for an inactive component).
func (m *Metrics) Previous() metric.MeterProvider {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.previous
}
