package metrics

import (
	"context"
	"net/url"
	"strings"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// redactingExporter hides the config's secrets in export errors. The
// periodic reader hands those errors to otel.Handle, which logs them, and a
// collector may echo a header or credential back in its error body.
type redactingExporter struct {
	sdkmetric.Exporter
	cfg Config
}

func (e redactingExporter) Export(ctx context.Context, rm *metricdata.ResourceMetrics) error {
	return redact(e.Exporter.Export(ctx, rm), e.cfg)
}

func (e redactingExporter) ForceFlush(ctx context.Context) error {
	return redact(e.Exporter.ForceFlush(ctx), e.cfg)
}

func (e redactingExporter) Shutdown(ctx context.Context) error {
	return redact(e.Exporter.Shutdown(ctx), e.cfg)
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
	secrets = append(secrets, c.BasicAuthPassword.Value(), c.AuthorizationHeader().Value())
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
