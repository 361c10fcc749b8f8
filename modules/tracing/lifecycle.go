package tracing

import (
	"context"
	"errors"
	"time"

	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	"go.uber.org/zap"
)

// Open builds the exporter and provider and installs them process-wide:
// the global tracer provider (otel.GetTracerProvider) starts spans on this
// component's provider, and the global propagator
// (otel.GetTextMapPropagator) reads and writes W3C traceparent, tracestate
// and baggage. The provider and propagator found there before are
// remembered and restored by Close. An inactive component (exporter none,
// or auto without an endpoint) installs nothing, so tracing costs nothing.
// Open refuses a second call.
func (t *Tracing) Open(ctx context.Context) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.state != stateNew {
		return ErrAlreadyOpen
	}
	if t.cfg.Exporter == ExporterNone {
		t.state = stateOpen
		return nil
	}
	p, err := t.newProvider(ctx)
	if err != nil {
		return err
	}
	t.provider = p
	t.slot = &target{tp: p, owner: t}
	t.previous, t.previousTM = install(t.slot)
	t.state = stateOpen
	return nil
}

// Close uninstalls the provider, restores the global tracer provider and
// propagator Open found, and shuts the provider down, flushing pending
// spans within shutdown_timeout (or ctx's deadline, if sooner). A flush
// that runs out is abandoned, and one the exporter fails (a collector
// refusing, or unreachable) is given up: either way a warning is logged
// (secrets redacted), pending spans may be lost, and Close returns nil, so
// the app's stop proceeds and a clean exit stays clean. Close on a
// component never opened, or closed, does nothing.
func (t *Tracing) Close(ctx context.Context) error {
	t.mu.Lock()
	if t.state != stateOpen {
		t.mu.Unlock()
		return nil
	}
	t.state = stateClosed
	p, slot := t.provider, t.slot
	t.slot = nil
	t.mu.Unlock()
	if p == nil {
		return nil
	}
	// Uninstall first, so no span starts on a provider being shut down;
	// spans already started still end into it and are flushed below.
	uninstall(slot)
	t.closing.Store(true)
	sctx, cancel := context.WithTimeout(ctx, t.cfg.ShutdownTimeout)
	defer cancel()
	start := time.Now()
	err := p.Shutdown(sctx)
	if err == nil {
		return nil
	}
	if sctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) {
		t.log.Warn("tracing flush abandoned: shutdown_timeout reached; pending spans may be dropped",
			zap.String("exporter", string(t.cfg.Exporter)),
			zap.Duration("shutdown_timeout", t.cfg.ShutdownTimeout),
			zap.Duration("waited", time.Since(start)))
		return nil
	}
	// The last export failing is no reason to fail the stop: the spans are
	// lost either way, and an exit status of 1 would tell an orchestrator
	// that the service itself misbehaved.
	t.log.Warn("tracing flush failed; pending spans may be dropped",
		zap.String("exporter", string(t.cfg.Exporter)),
		zap.Error(redact(err, t.cfg)))
	return nil
}

// Previous returns the global tracer provider and propagator Open found
// and Close restores (nil before Open and for an inactive component).
func (t *Tracing) Previous() (trace.TracerProvider, propagation.TextMapPropagator) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.previous, t.previousTM
}
