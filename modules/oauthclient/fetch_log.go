package oauthclient

import (
	"errors"
	"sync"
	"time"

	"go.uber.org/zap"
)

// fetchLogWindow is how often one kind of failed fetch is written: an
// authorization server that is down fails every pattern's fetches for as
// long as it is down, and callers retry.
const fetchLogWindow = time.Minute

// maxFetchLogKinds bounds the kinds remembered: an error code comes from
// the authorization server, which could vary it without end.
const maxFetchLogKinds = 64

// The fields of a refusal's log line: the server's error code as it sent
// it (error.type keeps only registered ones) and its error_description.
const (
	logErrorCode        = "svc.oauthclient.error"
	logErrorDescription = "svc.oauthclient.error_description"
)

// refusalOf returns the server's code and description carried by a
// refusal of the token or of the client; empty for other errors.
func refusalOf(err error) (code, description string) {
	var tr *TokenRefusedError
	var cr *ClientRejectedError
	switch {
	case errors.As(err, &tr):
		return tr.Code, tr.Description
	case errors.As(err, &cr):
		return cr.Code, cr.Description
	}
	return "", ""
}

// fetchLog writes failed fetches, at most one line per kind (pattern and
// error type) a minute with the count held back since, and, once, the
// first success of a pattern after failures. Fetches of many goroutines
// share it.
type fetchLog struct {
	mu       sync.Mutex
	kinds    map[fetchKind]*fetchKindState
	patterns map[string]*failingPattern
}

type fetchKind struct{ pattern, errorType string }

type fetchKindState struct {
	written    time.Time
	suppressed int
}

// failingPattern is a pattern's run of failures since its last success.
type failingPattern struct {
	failures int
	since    time.Time
}

// failed notes a failed fetch of rq and writes it unless its kind was
// written within the window. A refusal's line carries the server's error
// code and its cleaned description.
func (l *fetchLog) failed(log *zap.Logger, now time.Time, rq *tokenRequest, err error, status int) {
	errType := errorType(err)
	l.mu.Lock()
	if l.kinds == nil {
		l.kinds, l.patterns = map[fetchKind]*fetchKindState{}, map[string]*failingPattern{}
	}
	p := l.patterns[rq.pattern]
	if p == nil {
		p = &failingPattern{since: now}
		l.patterns[rq.pattern] = p
	}
	p.failures++
	kind := fetchKind{rq.pattern, errType}
	k, seen := l.kinds[kind]
	if !seen && len(l.kinds) >= maxFetchLogKinds {
		kind.errorType = "other"
		k, seen = l.kinds[kind]
	}
	if seen && now.Sub(k.written) < fetchLogWindow {
		k.suppressed++
		l.mu.Unlock()
		return
	}
	suppressed := 0
	if seen {
		suppressed = k.suppressed
	}
	l.kinds[kind] = &fetchKindState{written: now}
	l.mu.Unlock()

	fields := []zap.Field{
		zap.String(attrPattern, rq.pattern),
		zap.String(attrGrant, rq.kind),
		zap.String(attrError, errType),
		zap.Int("http.response.status_code", status),
	}
	if code, desc := refusalOf(err); code != "" || desc != "" {
		fields = append(fields, zap.String(logErrorCode, code))
		if desc != "" {
			fields = append(fields, zap.String(logErrorDescription, desc))
		}
	}
	if suppressed > 0 {
		fields = append(fields, zap.Int("suppressed", suppressed))
	}
	log.Warn("svc.oauthclient token fetch failed", fields...)
}

// succeeded writes the first success of rq's pattern after failures, once,
// and forgets them, so that its next outage is written at once.
func (l *fetchLog) succeeded(log *zap.Logger, now time.Time, rq *tokenRequest) {
	l.mu.Lock()
	p := l.patterns[rq.pattern]
	if p == nil {
		l.mu.Unlock()
		return
	}
	delete(l.patterns, rq.pattern)
	for k := range l.kinds {
		if k.pattern == rq.pattern {
			delete(l.kinds, k)
		}
	}
	l.mu.Unlock()
	log.Info("svc.oauthclient token fetch works again",
		zap.String(attrPattern, rq.pattern),
		zap.String(attrGrant, rq.kind),
		zap.Int("failed_fetches", p.failures),
		zap.Duration("failing_for", now.Sub(p.since)))
}
