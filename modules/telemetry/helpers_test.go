package telemetry_test

import (
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/go-chi/chi/v5"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/bearer"
	svcerrors "github.com/svckit/svc/modules/errors"
	"github.com/svckit/svc/modules/telemetry"
)

// fakeVerifier maps tokens to callers: the gate without keys.
type fakeVerifier struct{}

func (fakeVerifier) Verify(_ context.Context, token string) (bearer.Principal, error) {
	switch token {
	case "alice-token":
		return bearer.Principal{Subject: "alice", Issuer: "https://idp.test", Scopes: bearer.NewScopes("read"), Authenticated: true}, nil
	case "broken-token":
		return bearer.Principal{}, io.ErrUnexpectedEOF
	case "nokeys-token":
		return bearer.Principal{}, bearer.ErrKeysUnavailable
	}
	return bearer.Principal{}, &bearer.TokenError{Reason: bearer.ReasonSignature}
}

func (fakeVerifier) Issuers() []string { return []string{"https://idp.test"} }

func router() *chi.Mux {
	r := chi.NewRouter()
	r.With(authn.Require("read")).Get("/orders/{id}", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, "order")
	})
	r.With(authn.Require("admin")).Get("/admin", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, "admin")
	})
	r.With(authn.Anonymous).Get("/hello", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, "hello")
	})
	r.Get("/fail", svcerrors.Handler(func(http.ResponseWriter, *http.Request) error {
		return io.ErrClosedPipe // unknown to the format: a 500, logged
	}).ServeHTTP)
	r.Get("/ws", wsEcho)
	return r
}

// stack is what fxsvc serves: telemetry outermost, the error format, the
// gate, the router. The returned logs hold every record of every logger.
func stack(t *testing.T, opts []telemetry.Option, gateOpts ...authn.Option) (http.Handler, *observer.ObservedLogs) {
	t.Helper()
	core, logs := observer.New(zapcore.DebugLevel)
	log := zap.New(core)
	g, err := authn.New(fakeVerifier{}, gateOpts...)
	if err != nil {
		t.Fatal(err)
	}
	g.SetLogger(log)
	h, err := g.Handler(router())
	if err != nil {
		t.Fatal(err)
	}
	h = svcerrors.New(svcerrors.Logger(log)).Middleware(h)
	tel := newTelemetry(t, append([]telemetry.Option{telemetry.AccessLog(log)}, opts...)...)
	return tel.Handler(h), logs
}

func bearerHeader(token string) http.Header {
	return http.Header{"Authorization": {"Bearer " + token}}
}

func fieldsOf(e observer.LoggedEntry) map[string]any { return e.ContextMap() }

// only returns the one record of logger name, failing when there is not
// exactly one.
func only(t *testing.T, logs *observer.ObservedLogs, name string) observer.LoggedEntry {
	t.Helper()
	var got []observer.LoggedEntry
	for _, e := range logs.All() {
		if e.LoggerName == name {
			got = append(got, e)
		}
	}
	if len(got) != 1 {
		t.Fatalf("%d records of %s, want 1: %+v", len(got), name, got)
	}
	return got[0]
}

// newTelemetry builds the wrapper, failing the test on options it refuses.
func newTelemetry(t testing.TB, opts ...telemetry.Option) *telemetry.Telemetry {
	t.Helper()
	tel, err := telemetry.New(opts...)
	if err != nil {
		t.Fatal(err)
	}
	return tel
}
