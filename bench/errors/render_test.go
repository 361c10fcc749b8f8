// Benchmarks of writing a rejection: svc's render-and-write against the
// floor, a bare json.NewEncoder(w).Encode of the same body struct with the
// same headers, in the same run.
//
//	cd bench && go test -run '^$' -bench . -benchmem -count 5 ./errors
package errors_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/svckit/svc/bench/internal/pair"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	svcerrors "github.com/svckit/svc/modules/errors"
)

const instance = "/orders/42"

// discardWriter is a ResponseWriter that keeps the status and the byte
// count and drops the body. One is reused for every iteration; reset
// empties its header map the same way for every contender.
type discardWriter struct {
	h      http.Header
	status int
	n      int
}

func newDiscardWriter() *discardWriter { return &discardWriter{h: http.Header{}} }

func (w *discardWriter) Header() http.Header         { return w.h }
func (w *discardWriter) WriteHeader(status int)      { w.status = status }
func (w *discardWriter) Write(p []byte) (int, error) { w.n += len(p); return len(p), nil }

func (w *discardWriter) reset() {
	clear(w.h)
	w.status, w.n = 0, 0
}

// captureWriter records what was written, for the checks made before
// timing.
type captureWriter struct {
	h      http.Header
	status int
	body   bytes.Buffer
}

func (w *captureWriter) Header() http.Header         { return w.h }
func (w *captureWriter) WriteHeader(status int)      { w.status = status }
func (w *captureWriter) Write(p []byte) (int, error) { return w.body.Write(p) }

// plainProblem has exactly the fields and tags of svcerrors.ProblemDetail
// but, being a new defined type, none of its methods: encoding/json
// reflects over it directly, which is the cheapest a hand-written handler
// would do.
type plainProblem svcerrors.ProblemDetail

// rejection is one benchmark case: an error in one format, and the floor
// that writes the same status, headers and body by hand.
type rejection struct {
	name   string
	res    *svcerrors.Responses
	err    error
	status int
	header [][2]string // what the floor sets, in order, with Header().Set
	body   any         // what the floor encodes
}

func cases(tb testing.TB) []rejection {
	tb.Helper()
	formats := []struct {
		name string
		res  *svcerrors.Responses
	}{
		{"rfc9457", svcerrors.New()},
		{"tmf630", svcerrors.NewTMF("SVC", svcerrors.KindDocs)},
	}
	errs := []struct {
		name string
		err  error
	}{
		{"rate-limit", &svcerrors.RateLimitExceeded{RetryAfter: 1500 * time.Millisecond}},
		{"validation", &svcerrors.ValidationFailed{Errors: []svcerrors.FieldError{
			{Loc: []string{"body", "quantity"}, Msg: "must be at least 1", Type: "minimum"},
			{Loc: []string{"query", "currency"}, Msg: "is not one of the allowed values", Type: "enum"},
		}}},
	}
	var out []rejection
	for _, f := range formats {
		for _, e := range errs {
			c := rejection{name: f.name + "/" + e.name, res: f.res, err: e.err}
			c.fillFloor(tb)
			out = append(out, c)
		}
	}
	return out
}

// fillFloor derives the floor from svc's own answer, decoding the body
// into the body struct, so both sides write the same thing; check then
// proves it byte for byte.
func (c *rejection) fillFloor(tb testing.TB) {
	tb.Helper()
	out := c.res.Render(c.err, instance)
	if !out.Known {
		tb.Fatalf("%s: svc does not know the error", c.name)
	}
	c.status = out.Status
	rec := httptest.NewRecorder()
	out.Write(rec)
	written := rec.Header()
	for _, k := range []string{"Content-Type", "Cache-Control", "X-Content-Type-Options", "Retry-After"} {
		if v := written.Get(k); v != "" {
			c.header = append(c.header, [2]string{k, v})
		}
	}
	if len(written) != len(c.header) {
		tb.Fatalf("%s: svc sets headers the floor does not: %v", c.name, written)
	}
	if c.res.MediaType() != svcerrors.ProblemMediaType {
		body := &svcerrors.TMFError{}
		if err := json.Unmarshal(out.Body, body); err != nil {
			tb.Fatal(err)
		}
		c.body = body
	} else {
		body := &plainProblem{}
		if err := json.Unmarshal(out.Body, body); err != nil {
			tb.Fatal(err)
		}
		c.body = body
	}
}

func (c *rejection) svc(w http.ResponseWriter) {
	c.res.Render(c.err, instance).Write(w)
}

func (c *rejection) floor(w http.ResponseWriter) {
	h := w.Header()
	for _, kv := range c.header {
		h.Set(kv[0], kv[1])
	}
	w.WriteHeader(c.status)
	if err := json.NewEncoder(w).Encode(c.body); err != nil {
		panic(err)
	}
}

// check proves, before any timing, that svc and the floor answer with the
// same status, headers and body (the encoder adds a final newline).
func (c *rejection) check(tb testing.TB) {
	tb.Helper()
	s := &captureWriter{h: http.Header{}}
	f := &captureWriter{h: http.Header{}}
	c.svc(s)
	c.floor(f)
	if s.status != c.status || f.status != c.status || s.status < 400 {
		tb.Fatalf("%s: status svc %d, floor %d", c.name, s.status, f.status)
	}
	if fmt.Sprint(s.h) != fmt.Sprint(f.h) {
		tb.Fatalf("%s: headers differ\nsvc   %v\nfloor %v", c.name, s.h, f.h)
	}
	want := append(bytes.Clone(s.body.Bytes()), '\n')
	if !bytes.Equal(want, f.body.Bytes()) {
		tb.Fatalf("%s: bodies differ\nsvc   %s\nfloor %s", c.name, s.body.Bytes(), f.body.Bytes())
	}
}

// BenchmarkRenderWrite writes each rejection in each format through svc
// (Render + Write) and through the floor, side by side.
func BenchmarkRenderWrite(b *testing.B) {
	for _, c := range cases(b) {
		c.check(b)
		b.Run(c.name+"/svc", func(b *testing.B) {
			w := newDiscardWriter()
			b.ReportAllocs()
			defer pair.CPUMeter(b)()
			for b.Loop() {
				w.reset()
				c.svc(w)
			}
			if w.status != c.status || w.n == 0 {
				b.Fatalf("status %d, %d bytes", w.status, w.n)
			}
		})
		b.Run(c.name+"/floor", func(b *testing.B) {
			w := newDiscardWriter()
			b.ReportAllocs()
			defer pair.CPUMeter(b)()
			for b.Loop() {
				w.reset()
				c.floor(w)
			}
			if w.status != c.status || w.n == 0 {
				b.Fatalf("status %d, %d bytes", w.status, w.n)
			}
		})
	}
}

// BenchmarkRenderWritePaired alternates blocks of 128 svc and 128 floor
// writes in one loop, so both see the same load on a busy 2-core box, and
// reports svc/floor on wall and on thread CPU time (the goal: within 1.5).
func BenchmarkRenderWritePaired(b *testing.B) {
	for _, c := range cases(b) {
		c.check(b)
		b.Run(c.name, func(b *testing.B) {
			w := newDiscardWriter()
			svc, floor := pair.Paired(b, 128,
				func() { w.reset(); c.svc(w) },
				func() { w.reset(); c.floor(w) })
			pair.Report(b, "svc", "floor", svc, floor)
		})
	}
}

// TestBenchmarkCasesMatch keeps the comparison honest in plain `go test`:
// every case's floor writes exactly what svc writes.
func TestBenchmarkCasesMatch(t *testing.T) {
	for _, c := range cases(t) {
		c.check(t)
	}
}
