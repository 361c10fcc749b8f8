// Benchmarks of the rate limiter's admitted path: svc's Limit marker (in
// memory, GCRA, RateLimit headers) against go-chi/httprate's LimitByIP
// (sliding window, X-RateLimit headers) around the same handler, with a
// budget neither exhausts, in the same run.
//
//	cd bench && go test -run '^$' -bench . -benchmem -count 6 ./ratelimit
package ratelimit_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/go-chi/httprate"

	"github.com/svckit/svc/bench/internal/pair"
	"github.com/svckit/svc/modules/ratelimit"
	"github.com/svckit/svc/modules/store"
	"github.com/svckit/svc/modules/telemetry"
)

type discardWriter struct {
	h      http.Header
	status int
}

func (w *discardWriter) Header() http.Header         { return w.h }
func (w *discardWriter) WriteHeader(status int)      { w.status = status }
func (w *discardWriter) Write(p []byte) (int, error) { return len(p), nil }

var handler = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })

const perHour = 1 << 40 // never exhausted within a benchmark

func contenders(b *testing.B) map[string]http.Handler {
	l, err := ratelimit.New(ratelimit.Store(store.NewMemory()))
	if err != nil {
		b.Fatal(err)
	}
	marker := ratelimit.Limit(fmt.Sprintf("%d/h", int64(perHour)), 1000)(handler)
	tel, err := telemetry.New()
	if err != nil {
		b.Fatal(err)
	}
	return map[string]http.Handler{
		"svc-marker":     marker,
		"svc-middleware": l.Middleware(marker),
		// As in an fxsvc app: svc's telemetry wrapper (request IDs) in
		// front, and the same wrapper alone, whose allocations the limiter
		// must not add to.
		"svc-telemetry-middleware": tel.Handler(l.Middleware(marker)),
		"telemetry-only":           tel.Handler(handler),
		"httprate":                 httprate.LimitByIP(perHour, time.Hour)(handler),
		"bare":                     handler,
	}
}

func serve(b *testing.B, h http.Handler) func() {
	r := httptest.NewRequest("GET", "/orders", nil)
	r.RemoteAddr = "203.0.113.7:51234"
	w := &discardWriter{h: http.Header{}}
	return func() {
		clear(w.h)
		w.status = 0
		h.ServeHTTP(w, r)
		if w.status != http.StatusOK {
			b.Fatalf("status %d", w.status)
		}
	}
}

func BenchmarkAdmitted(b *testing.B) {
	for name, h := range contenders(b) {
		b.Run(name, func(b *testing.B) {
			run := serve(b, h)
			run()
			b.ReportAllocs()
			defer pair.CPUMeter(b)()
			for b.Loop() {
				run()
			}
		})
	}
}

// BenchmarkAdmittedPaired alternates svc (marker and component middleware,
// as fxsvc installs it) with httprate in one loop: the goal is svc ≤ 0.5×.
func BenchmarkAdmittedPaired(b *testing.B) {
	cs := contenders(b)
	svc, peer := serve(b, cs["svc-middleware"]), serve(b, cs["httprate"])
	svc()
	peer()
	s, p := pair.Paired(b, 64, svc, peer)
	pair.Report(b, "svc", "httprate", s, p)
}
