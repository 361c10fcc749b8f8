package conditional

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/svckit/svc/internal/behind"
	svcerrors "github.com/svckit/svc/modules/errors"
)

// currentFunc reads the current validators of the resource a write
// targets (see Match).
type currentFunc = func(r *http.Request) (etag string, lastModified time.Time, err error)

// Match is a marker middleware for writes: a request carrying If-Match
// (strong comparison; "*" matches any existing resource) or, without it,
// If-Unmodified-Since, then If-None-Match (weak comparison; "*" matches
// any existing resource, so "If-None-Match: *" creates only), is checked
// against current before the handler runs, and answers 412
// precondition-failed when stale (RFC 9110 §13.2.2). A write without these
// headers runs as usual. GET, HEAD, OPTIONS and TRACE pass through.
//
// current reads the current validators of the resource a write targets:
// its entity tag ("" when it does not exist) and its last modification
// time (zero when unknown). An error answers 500 and is logged, never
// sent.
func Match(current func(r *http.Request) (etag string, lastModified time.Time, err error)) func(http.Handler) http.Handler {
	return matcher("conditional.Match", "conditional=match", current, false)
}

// Require is [Match] that also answers 428 precondition-required to a
// write carrying neither If-Match, If-Unmodified-Since nor
// "If-None-Match: *", so that no client overwrites a change it has not
// seen (RFC 6585 §3).
func Require(current func(r *http.Request) (etag string, lastModified time.Time, err error)) func(http.Handler) http.Handler {
	return matcher("conditional.Require", "conditional=require", current, true)
}

func matcher(name, says string, current currentFunc, required bool) func(http.Handler) http.Handler {
	if current == nil {
		panic("conditional: Match and Require need a function that reads the resource's current ETag")
	}
	return behind.MarkerOf(name, says, func(b behind.Marker) *matchMarker {
		return &matchMarker{Marker: b, current: current, required: required}
	})
}

type matchMarker struct {
	behind.Marker
	current  currentFunc
	required bool
}

func (m *matchMarker) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if behind.Safe(r.Method) || !componentFor(r).paths.Applies(r) || behind.Unrouted(r) {
		m.Next.ServeHTTP(w, r)
		return
	}
	ifMatch := r.Header.Values("If-Match")
	ius := r.Header.Get("If-Unmodified-Since")
	inm := r.Header.Values("If-None-Match")
	if len(ifMatch) == 0 && ius == "" && !createOnly(inm) && m.required {
		behind.Refuse(w, r, &svcerrors.PreconditionRequired{})
		return
	}
	if len(ifMatch) == 0 && ius == "" && len(inm) == 0 {
		m.Next.ServeHTTP(w, r)
		return
	}
	etag, modified, err := m.current(r)
	if err != nil {
		behind.Refuse(w, r, fmt.Errorf("conditional: reading the current validators: %w", err))
		return
	}
	// RFC 9110 §13.2.2: If-None-Match is evaluated once If-Match (or
	// If-Unmodified-Since) held; on a write a match answers 412.
	if !preconditionHolds(ifMatch, ius, etag, modified) ||
		(len(inm) > 0 && etag != "" && behind.AnyMatch(inm, etag, false)) {
		behind.Refuse(w, r, &svcerrors.PreconditionFailed{})
		return
	}
	m.Next.ServeHTTP(w, r)
}

// createOnly reports an "If-None-Match: *": the write proceeds only when
// no representation exists, so it overwrites no change (RFC 9110 §13.1.2)
// and [Require] takes it as the precondition.
func createOnly(inm []string) bool {
	for _, v := range inm {
		if strings.TrimSpace(v) == "*" {
			return true
		}
	}
	return false
}

func preconditionHolds(ifMatch []string, ius, etag string, modified time.Time) bool {
	if len(ifMatch) > 0 {
		return etag != "" && behind.AnyMatch(ifMatch, etag, true)
	}
	since, err := http.ParseTime(ius)
	if err != nil || modified.IsZero() {
		// RFC 9110 §13.1.4: an invalid date, or a resource without one,
		// makes the header ignored.
		return true
	}
	return !modified.Truncate(time.Second).After(since)
}

func errorf(format string, args ...any) error { return fmt.Errorf(format, args...) }

// Refusals lists what the marker answers, for API documents.
func (m *matchMarker) Refusals() []svcerrors.Rejection {
	if m.required {
		return []svcerrors.Rejection{&svcerrors.PreconditionFailed{}, &svcerrors.PreconditionRequired{}}
	}
	return []svcerrors.Rejection{&svcerrors.PreconditionFailed{}}
}

// APIDoc tells API documents the If-Match a write is checked against.
func (m *matchMarker) APIDoc(method string) behind.APIDoc {
	if behind.Safe(method) {
		return behind.APIDoc{}
	}
	d := "The ETag the write expects the resource to have (strong comparison): a stale one answers 412."
	if m.required {
		d += " A write carrying neither If-Match, If-Unmodified-Since nor \"If-None-Match: *\" answers 428."
	}
	return behind.APIDoc{Params: []behind.Header{{Name: "If-Match", Description: d}}}
}
