package oauthclient

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/svckit/svc/internal/oauthenv"
)

// attempt sends one attempt of req through the token transport. With
// Resilience.AttemptTimeout set, an attempt that has no answer (its
// status line and headers) by then is cut and ends with an
// [attemptTimeoutError]; the body of an answer in time is read under the
// request's own context, as long as it takes.
func (r *resilient) attempt(req *http.Request) (*http.Response, error) {
	d := r.p.resilience.AttemptTimeout
	if d <= 0 {
		return r.next.RoundTrip(req)
	}
	parent := req.Context()
	ctx, cancel := context.WithCancel(parent)
	// Not context.WithTimeout: its deadline would also cut the reading of
	// an answer that came in time.
	cut := time.AfterFunc(d, cancel)
	resp, err := r.next.RoundTrip(req.WithContext(ctx))
	if cut.Stop() {
		if err != nil {
			cancel()
			return resp, err
		}
		runOnClose(resp, cancel)
		return resp, nil
	}
	// The timer fired: the attempt was cut, or its answer came just as it
	// did and its body can no longer be read.
	cancel()
	if resp != nil {
		resp.Body.Close()
	}
	if parent.Err() != nil {
		// The caller's own end came first: its error, as without the
		// attempt timeout.
		if err == nil {
			err = parent.Err()
		}
		return nil, err
	}
	return nil, &attemptTimeoutError{pattern: r.p.name, setting: oauthenv.PatternPrefix(r.p.name, r.p.kind != kindClientCredentials) + envAttemptTimeout, timeout: d}
}

// envAttemptTimeout is the pattern variable of Resilience.AttemptTimeout,
// after the pattern's prefix.
const envAttemptTimeout = "RESILIENCE_ATTEMPT_TIMEOUT"

// attemptTimeoutError is an attempt [Resilience].AttemptTimeout cut. It
// is a timeout (errors.Is context.DeadlineExceeded, and a net.Error whose
// Timeout is true), retried as a lost connection is.
type attemptTimeoutError struct {
	pattern string
	setting string // the variable, beside the field
	timeout time.Duration
}

func (e *attemptTimeoutError) Error() string {
	return "oauthclient: pattern " + strconv.Quote(e.pattern) + ": no answer within the attempt timeout of " + e.timeout.String() +
		" (oauthclient.Resilience.AttemptTimeout, " + e.setting + ")"
}

func (e *attemptTimeoutError) Timeout() bool   { return true }
func (e *attemptTimeoutError) Temporary() bool { return true }
func (e *attemptTimeoutError) Unwrap() error   { return context.DeadlineExceeded }
