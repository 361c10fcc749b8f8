package metrics

import (
	"context"
	"errors"
	"net"
	"net/url"
	"regexp"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/svckit/svc/internal/otelcore"
)

// otelErrorWindow is how often one kind of OpenTelemetry error is written:
// a collector that is down fails every export interval for as long as it is
// down, and a line per failure would bury everything else.
const otelErrorWindow = time.Minute

// errorLimiter lets one line per kind through per otelErrorWindow and
// counts the rest, so that the next line can say how many were held back.
// Its zero value is ready; the SDK's goroutines share it.
type errorLimiter struct {
	mu    sync.Mutex
	now   func() time.Time // nil: time.Now; tests set a fake clock
	kinds map[string]*limitedKind
}

type limitedKind struct {
	written    time.Time
	suppressed int
}

// allow reports whether a line of kind may be written now and, when it
// may, how many of its kind were held back since the last one.
func (l *errorLimiter) allow(kind string) (bool, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now()
	if l.now != nil {
		now = l.now()
	}
	if l.kinds == nil {
		l.kinds = map[string]*limitedKind{}
	}
	k, seen := l.kinds[kind]
	if seen && now.Sub(k.written) < otelErrorWindow {
		k.suppressed++
		return false, 0
	}
	suppressed := 0
	if seen {
		suppressed = k.suppressed
	}
	// The kinds stay few: exportFailure's classes are a small fixed set
	// and the SDK's log messages are constants.
	l.kinds[kind] = &limitedKind{written: now}
	return true, suppressed
}

// logOTelError writes err, an error OpenTelemetry handed to otel.Handle
// (a failed periodic export, mostly), unless its kind was written within
// the window.
func (m *Metrics) logOTelError(err error) {
	kind := exportFailure(err)
	ok, suppressed := m.otelErrors.allow(kind)
	if !ok {
		return
	}
	fields := []zap.Field{zap.String("failure", kind), zap.Error(otelcore.RedactExport(err, m.cfg.Export))}
	if suppressed > 0 {
		fields = append(fields, zap.Int("suppressed", suppressed))
	}
	m.c.Log.Error("opentelemetry error", fields...)
}

// exporterStatus finds the HTTP status in the OTLP HTTP exporter's
// refusals ("failed to send metrics to URL: 400 Bad Request").
var exporterStatus = regexp.MustCompile(`: ([1-5][0-9][0-9]) [A-Z]`)

// exportFailure names the kind of err from a small fixed set, so that
// errors differing only in a URL or a body share their window.
func exportFailure(err error) string {
	var nerr net.Error
	var uerr *url.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &nerr) && nerr.Timeout()):
		return "export timeout"
	case errors.As(err, &uerr) || errors.As(err, &nerr):
		return "export request failed"
	}
	if m := exporterStatus.FindStringSubmatch(err.Error()); m != nil {
		return "export status " + m[1]
	}
	return "other"
}
