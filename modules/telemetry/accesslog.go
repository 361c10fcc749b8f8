package telemetry

import (
	"net/http"
	"strconv"
	"time"

	"go.opentelemetry.io/otel/trace"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/svckit/svc/modules/requestid"
)

// writeAccess writes the request's access record: ECS / OpenTelemetry field
// names, as the security records use. The route is the template; an
// unknown URL has none, and its raw path is never written.
func writeAccess(log *zap.Logger, r *http.Request, x *exchange, span trace.Span, method, route string, found bool, status int, id string, elapsed time.Duration) {
	shown := route
	if !found {
		shown = "(no route)"
	}
	ce := log.Check(zapcore.InfoLevel, "")
	if ce == nil {
		return
	}
	// Built only once the record is wanted.
	ce.Message = method + " " + shown + " " + statusText(status)
	addr := x.st.ClientAddress(r)
	fields := make([]zap.Field, 0, 12)
	fields = append(fields,
		zap.String("http.request.method", method),
	)
	if found {
		fields = append(fields, zap.String("http.route", route))
	}
	fields = append(fields,
		zap.Int("http.response.status_code", status),
		zap.Int64("http.response.body.size", x.rec.bytes),
		zap.Int64("event.duration", elapsed.Nanoseconds()),
		zap.String("client.address", addr),
	)
	if id != "" {
		fields = append(fields, zap.String(requestid.LogField, id))
	}
	if span != nil {
		if sc := span.SpanContext(); sc.IsValid() {
			fields = append(fields, zap.String("trace_id", sc.TraceID().String()), zap.String("span_id", sc.SpanID().String()))
		}
	}
	if sub, ok := x.st.Subject(); ok {
		fields = append(fields, zap.String("enduser.id", sub))
	}
	ce.Write(fields...)
}

// statusText is a status code's three digits, without an allocation for
// the common ones.
func statusText(code int) string {
	switch code {
	case 200:
		return "200"
	case 201:
		return "201"
	case 204:
		return "204"
	case 304:
		return "304"
	case 400:
		return "400"
	case 401:
		return "401"
	case 403:
		return "403"
	case 404:
		return "404"
	case 429:
		return "429"
	case 500:
		return "500"
	case 503:
		return "503"
	}
	return strconv.Itoa(code)
}
