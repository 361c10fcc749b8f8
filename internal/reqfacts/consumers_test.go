package reqfacts_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/go-chi/chi/v5"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/bans"
	"github.com/svckit/svc/modules/authn/bearer"
	"github.com/svckit/svc/modules/authn/flood"
	svcerrors "github.com/svckit/svc/modules/errors"
	"github.com/svckit/svc/modules/ratelimit"
	"github.com/svckit/svc/modules/store"
	"github.com/svckit/svc/modules/telemetry"
)

// TestEveryPartNamesTheSameCaller feeds every row of the trusted-proxy
// table to every part of svc that names a caller, stacked as fxsvc.Serve
// stacks them, and checks that each names the caller the rule names: the
// access log, the server span, the gate's security record and its span
// event, its ban counter, its flood budget and the rate limiter's budget.
func TestEveryPartNamesTheSameCaller(t *testing.T) {
	for _, c := range addressCases {
		t.Run(c.name, func(t *testing.T) {
			s := newCallerStack(t, c.proxies())

			// An anonymous route with a rate limit: the limiter's key
			// and the access log.
			s.serve(c, "/anon", "")
			if got := s.rates.ids(); len(got) != 1 || got[0] != c.want {
				t.Errorf("rate limiter keyed on %q, want %q", got, c.want)
			}
			if got := s.accessAddress(); got != c.want {
				t.Errorf("access log client.address %q, want %q", got, c.want)
			}
			if got := s.serverSpanAddress(); got != c.want {
				t.Errorf("server span client.address %q, want %q", got, c.want)
			}

			// A valid token to a URL no route answers spends the flood
			// budget (burst 1) of the caller: none is left for it.
			s.serve(c, "/nowhere", "alice")
			if _, ok := s.flood.Allow(c.want); ok {
				t.Errorf("flood budget spent on another address than %q", c.want)
			}

			// A forged token: the security record, its span event and
			// the ban counter (threshold 1: the caller is now banned).
			s.serve(c, "/me", "forged")
			if got := s.securityAddress(); got != c.want {
				t.Errorf("security record client.address %q, want %q", got, c.want)
			}
			if got := s.refusalEventAddress(); got != c.want {
				t.Errorf("refusal span event client.address %q, want %q", got, c.want)
			}
			if _, banned := s.bans.Banned(c.want); !banned {
				t.Errorf("ban counted on another address than %q", c.want)
			}
		})
	}
}

type callerStack struct {
	h     http.Handler
	logs  *observer.ObservedLogs
	spans *tracetest.SpanRecorder
	rates *recordingRates
	bans  *bans.Bans
	flood *flood.Limit
}

func newCallerStack(t *testing.T, cidrs []string) *callerStack {
	t.Helper()
	s := &callerStack{
		rates: &recordingRates{Rates: store.NewMemory()},
		bans:  bans.New(bans.Threshold(1)),
		flood: flood.New(flood.Rate(0.001), flood.Burst(1)),
		spans: tracetest.NewSpanRecorder(),
	}
	core, logs := observer.New(zapcore.DebugLevel)
	s.logs = logs
	log := zap.New(core)

	r := chi.NewRouter()
	r.With(authn.Anonymous, ratelimit.Limit("100/s", 100)).Get("/anon", func(http.ResponseWriter, *http.Request) {})
	r.Get("/me", func(http.ResponseWriter, *http.Request) {})

	g, err := authn.New(tokens{}, authn.Bans(s.bans), authn.Flood(s.flood))
	if err != nil {
		t.Fatal(err)
	}
	g.SetLogger(log)
	h, err := g.Handler(r)
	if err != nil {
		t.Fatal(err)
	}
	limiter, err := ratelimit.New(ratelimit.Store(s.rates))
	if err != nil {
		t.Fatal(err)
	}
	h = limiter.Middleware(h)
	h = svcerrors.New(svcerrors.Logger(log)).Middleware(h)
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(s.spans))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	prev := otel.GetTracerProvider()
	otel.SetTracerProvider(tp) // where the wrapper's spans go
	t.Cleanup(func() { otel.SetTracerProvider(prev) })
	tel, err := telemetry.New(telemetry.TrustedProxies(cidrs...), telemetry.AccessLog(log))
	if err != nil {
		t.Fatal(err)
	}
	s.h = tel.Handler(h)
	return s
}

// serve sends c's request to path, with a bearer token when one is given.
func (s *callerStack) serve(c addressCase, path, token string) {
	r := c.request()
	r.URL.Path = path
	if token != "" {
		r.Header.Set("Authorization", "Bearer "+token)
	}
	s.logs.TakeAll()
	s.h.ServeHTTP(httptest.NewRecorder(), r)
}

func (s *callerStack) field(logger, key string) string {
	for _, e := range s.logs.FilterLoggerName(logger).All() {
		if v, ok := e.ContextMap()[key].(string); ok {
			return v
		}
	}
	return "(no record)"
}

func (s *callerStack) accessAddress() string {
	return s.field("svc.http.access", "client.address")
}

func (s *callerStack) securityAddress() string {
	return s.field("svc.security.events", "client.address")
}

func (s *callerStack) lastSpan() sdktrace.ReadOnlySpan {
	ended := s.spans.Ended()
	if len(ended) == 0 {
		return nil
	}
	return ended[len(ended)-1]
}

func attr(kvs []attribute.KeyValue, key string) string {
	for _, kv := range kvs {
		if string(kv.Key) == key {
			return kv.Value.AsString()
		}
	}
	return "(none)"
}

func (s *callerStack) serverSpanAddress() string {
	if sp := s.lastSpan(); sp != nil {
		return attr(sp.Attributes(), "client.address")
	}
	return "(no span)"
}

func (s *callerStack) refusalEventAddress() string {
	if sp := s.lastSpan(); sp != nil {
		for _, e := range sp.Events() {
			if e.Name == "svc.authentication.refused" {
				return attr(e.Attributes, "client.address")
			}
		}
	}
	return "(no event)"
}

// tokens knows "alice"; any other token is forged.
type tokens struct{}

func (tokens) Verify(_ context.Context, token string) (bearer.Principal, error) {
	if token == "alice" {
		return bearer.Principal{Subject: "alice", Issuer: "https://idp.test", Authenticated: true}, nil
	}
	return bearer.Principal{}, &bearer.TokenError{Reason: bearer.ReasonSignature}
}

// recordingRates notes the callers whose budgets are spent.
type recordingRates struct {
	store.Rates
	mu   sync.Mutex
	keys []store.Key
}

func (r *recordingRates) Allow(ctx context.Context, k store.Key, rate store.Rate) (store.RateResult, error) {
	r.mu.Lock()
	r.keys = append(r.keys, k)
	r.mu.Unlock()
	return r.Rates.Allow(ctx, k, rate)
}

func (r *recordingRates) ids() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, 0, len(r.keys))
	for _, k := range r.keys {
		out = append(out, k.ID)
	}
	return out
}
