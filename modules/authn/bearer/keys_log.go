package bearer

import (
	"context"
	"errors"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/svckit/svc/secret"
)

// loadError is a key-loading failure with the stage and URL it concerns,
// so the loader's log can say what failed where. Its message is the
// wrapped error's.
type loadError struct {
	stage string // "discovery" or "jwks"
	url   string
	err   error
}

func (e *loadError) Error() string { return e.err.Error() }
func (e *loadError) Unwrap() error { return e.err }

// loadLog writes the key loader's failures and its recovery. A provider
// that is down fails every retry interval for as long as it is down, so each
// kind of failure is written at most once per loadLogWindow, the next line
// carrying how many were held back. Only the loader's goroutine uses it.
// loadLogWindow is how long a kind of load failure stays quiet after its
// line, as the gate's security records do for one address.
const loadLogWindow = time.Minute

type loadLog struct {
	kinds    map[string]*loadKind
	failures int       // since the last success
	since    time.Time // first failure since the last success
}

type loadKind struct {
	written    time.Time
	suppressed int
}

// failed logs err unless its kind was written within the window. held
// says whether keys from an earlier load are still in use: without them
// every request is refused, so the line is an error, not a warning.
func (l *loadLog) failed(log *zap.Logger, err error, now time.Time, retry time.Duration, held bool) {
	if l.failures == 0 {
		l.since = now
	}
	l.failures++
	kind, where := describeLoadFailure(err)
	if l.kinds == nil {
		l.kinds = map[string]*loadKind{}
	}
	k, seen := l.kinds[kind]
	if seen && now.Sub(k.written) < loadLogWindow {
		k.suppressed++
		return
	}
	suppressed := 0
	if seen {
		suppressed = k.suppressed
	}
	l.kinds[kind] = &loadKind{written: now}
	level := zap.ErrorLevel
	if held {
		level = zap.WarnLevel
	}
	fields := []zap.Field{
		zap.String("failure", kind),
		zap.String("error", redactCause(err)),
		zap.Time("next_attempt", now.Add(retry)),
		zap.Duration("retry_interval", retry),
		zap.Bool("keys_held", held),
	}
	if where != "" {
		fields = append(fields, zap.String("url", secret.URL(where).String()))
	}
	if suppressed > 0 {
		fields = append(fields, zap.Int("suppressed", suppressed))
	}
	log.Log(level, "signing keys not loaded; retrying", fields...)
}

// succeeded logs the first success after failures, once, and forgets them
// so that the next outage is written at once.
func (l *loadLog) succeeded(log *zap.Logger, now time.Time) {
	if l.failures == 0 {
		return
	}
	log.Info("signing keys loaded again", zap.Int("failed_attempts", l.failures),
		zap.Duration("failing_for", now.Sub(l.since)))
	l.failures, l.kinds = 0, nil
}

// describeLoadFailure names the kind of a failure (its stage and a class
// from a small fixed set, so that the kinds stay few whatever the errors
// say) and the URL it concerns, "" when unknown.
func describeLoadFailure(err error) (kind, where string) {
	stage := "jwks"
	var le *loadError
	if errors.As(err, &le) {
		stage, where = le.stage, le.url
	}
	var status *fetchStatusError
	var uerr *url.Error
	var nerr net.Error
	class := "invalid document"
	switch {
	case errors.As(err, &status):
		class = "status " + strconv.Itoa(status.Status)
		if where == "" {
			where = status.URL
		}
	case errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &nerr) && nerr.Timeout()):
		class = "timeout"
	case errors.As(err, &uerr):
		class = "request failed"
	}
	if where == "" && errors.As(err, &uerr) {
		where = uerr.URL
	}
	return stage + " " + class, where
}

// redactCause is err's message with every URL it is known to carry
// redacted.
func redactCause(err error) string {
	msg := err.Error()
	for _, raw := range causeURLs(err, nil) {
		if r := secret.URL(raw).String(); raw != "" && r != raw {
			msg = strings.ReplaceAll(msg, raw, r)
		}
	}
	return msg
}

// redactedError is err under a message whose URLs are redacted
// (redactCause); its chain stays whole for errors.Is and errors.As.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// causeURLs collects the URLs err's chain carries.
func causeURLs(err error, urls []string) []string {
	switch t := err.(type) {
	case *loadError:
		urls = append(urls, t.url)
	case *fetchStatusError:
		urls = append(urls, t.URL)
	case *url.Error:
		urls = append(urls, t.URL)
	}
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		if inner := u.Unwrap(); inner != nil {
			urls = causeURLs(inner, urls)
		}
	case interface{ Unwrap() []error }:
		for _, inner := range u.Unwrap() {
			urls = causeURLs(inner, urls)
		}
	}
	return urls
}
