package tracing

import (
	"context"
	"net/url"
	"strings"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.uber.org/zap"
)

// redactingExporter hides the config's secrets in export errors. The batch
// processor hands those errors to otel.Handle, which logs them, and a
// collector may echo a header or credential back in its error body.
//
// Once the component is closing, a failed export is the final flush
// failing: it is logged once as the component's warning (or, out of time,
// left to Close's "abandoned" warning) and not passed on to
// OpenTelemetry's error handler, which would log it a second time.
type redactingExporter struct {
	sdktrace.SpanExporter
	t *Tracing
}

func (e redactingExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	err := redact(e.SpanExporter.ExportSpans(ctx, spans), e.t.cfg)
	if err == nil || !e.t.closing.Load() {
		return err
	}
	if ctx.Err() == nil {
		e.t.log.Warn("tracing flush failed; pending spans may be dropped",
			zap.String("exporter", string(e.t.cfg.Exporter)),
			zap.Int("spans", len(spans)),
			zap.Error(err))
	}
	// Out of time: Close logs that the flush was abandoned.
	return nil
}

func (e redactingExporter) Shutdown(ctx context.Context) error {
	return redact(e.SpanExporter.Shutdown(ctx), e.t.cfg)
}

// redactedError carries an exporter error with every secret of the config
// replaced by ***: transport errors quote URLs and sometimes headers.
type redactedError struct {
	msg string
	err error // nil when redaction changed the message: the cause would leak
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

func redact(err error, c Config) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	var secrets []string
	if u, perr := url.Parse(c.Endpoint.Value()); perr == nil && u.User != nil {
		secrets = append(secrets, u.User.String(), u.User.Username())
		if p, ok := u.User.Password(); ok {
			secrets = append(secrets, p)
		}
	}
	for _, v := range c.Headers {
		secrets = append(secrets, v.Value())
	}
	auth := c.AuthorizationHeader().Value()
	// The header first, then its base64 part alone: an error may quote either.
	secrets = append(secrets, c.BasicAuthPassword.Value(), auth, strings.TrimPrefix(auth, "Basic "))
	for _, s := range secrets {
		if len(s) >= 3 {
			msg = strings.ReplaceAll(msg, s, "***")
		}
	}
	if msg != err.Error() {
		return &redactedError{msg: msg}
	}
	return &redactedError{msg: msg, err: err}
}
