package authn_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/bearer"
	svcerrors "github.com/svckit/svc/modules/errors"
)

// observed is a gate whose security records and spans the test reads.
type observed struct {
	srv   *httptest.Server
	logs  *observer.ObservedLogs
	spans *tracetest.SpanRecorder
	gate  *authn.Gate
	now   *time.Time
}

func observedGate(t *testing.T, router http.Handler, v bearer.Verifier, opts ...authn.Option) *observed {
	t.Helper()
	return observedGateBehind(t, nil, router, v, opts...)
}

// observedGateBehind is observedGate behind svc's telemetry wrapper
// trusting the proxies cidrs.
func observedGateBehind(t *testing.T, cidrs []string, router http.Handler, v bearer.Verifier, opts ...authn.Option) *observed {
	t.Helper()
	core, logs := observer.New(zapcore.DebugLevel)
	g, err := authn.New(v, opts...)
	if err != nil {
		t.Fatal(err)
	}
	g.SetLogger(zap.New(core).Named("app"))
	now := time.Unix(1_700_000_000, 0)
	authn.SetRecordClock(g, func() time.Time { return now })
	h, err := g.Handler(router)
	if err != nil {
		t.Fatal(err)
	}
	spans := tracetest.NewSpanRecorder()
	tracer := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans)).Tracer("test")
	server := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, span := tracer.Start(r.Context(), "server")
		defer span.End()
		svcerrors.New().Middleware(h).ServeHTTP(w, r.WithContext(ctx))
	})
	srv := httptest.NewServer(trusting(t, cidrs, server))
	t.Cleanup(srv.Close)
	return &observed{srv: srv, logs: logs, spans: spans, gate: g, now: &now}
}

func (o *observed) security() []observer.LoggedEntry {
	return o.logs.FilterLoggerName("svc.security.events").AllUntimed()
}

func TestRefusalRecordFields(t *testing.T) {
	o := observedGate(t, exampleRouter(), newFake())
	h := bearerHeader("expired-token")
	h.Set("User-Agent", "curl/8.0")
	do(t, o.srv, "GET", "/me", h, "")
	recs := o.security()
	if len(recs) != 1 {
		t.Fatalf("%d records", len(recs))
	}
	rec := recs[0]
	if rec.Level != zapcore.WarnLevel || rec.LoggerName != "svc.security.events" || rec.Message != "GET /me 401 expired" {
		t.Fatalf("%v %q %q", rec.Level, rec.LoggerName, rec.Message)
	}
	f := rec.ContextMap()
	want := map[string]any{
		"otel.event.name":           "svc.authentication.refused",
		"event.kind":                "event",
		"event.outcome":             "failure",
		"event.action":              "svc.authentication.refused",
		"error.type":                "expired",
		"http.request.method":       "GET",
		"http.route":                "/me",
		"http.response.status_code": int64(401),
		"client.address":            "127.0.0.1",
		"user_agent.original":       "curl/8.0",
	}
	for k, v := range want {
		if f[k] != v {
			t.Errorf("%s = %#v, want %#v", k, f[k], v)
		}
	}
	for k, v := range map[string]string{"event.category": "[authentication]", "event.type": "[start]"} {
		if fmt.Sprint(f[k]) != v {
			t.Errorf("%s = %v, want %s", k, f[k], v)
		}
	}
	if len(f["trace_id"].(string)) != 32 || len(f["span_id"].(string)) != 16 {
		t.Errorf("trace ids %v %v", f["trace_id"], f["span_id"])
	}
	if _, has := f["svc.security.suppressed"]; has {
		t.Error("suppressed on the first record")
	}
	for _, v := range f {
		if strings.Contains(fmt.Sprint(v), "expired-token") {
			t.Fatal("the token reached the record")
		}
	}
}

func TestRecordLevelsAndKinds(t *testing.T) {
	o := observedGate(t, exampleRouter(), newFake(), authn.Exclude("/healthz"))
	do(t, o.srv, "GET", "/me", nil, "")                                                    // no credential: INFO
	*o.now = o.now.Add(time.Minute)                                                        // the same kind again is written only a minute later
	do(t, o.srv, "GET", "/nowhere", http.Header{"Authorization": {"Basic YTpi"}}, "")      // another scheme: WARN
	do(t, o.srv, "GET", "/admin", bearerHeader("alice-token"), "")                         // missing scope
	do(t, o.srv, "GET", "/me", http.Header{"Authorization": {"Bearer a", "Bearer b"}}, "") // ambiguous
	do(t, o.srv, "GET", "/me", bearerHeader("nokeys-token"), "")
	// Nothing recorded: excluded, anonymous route without a token, served.
	do(t, o.srv, "GET", "/healthz", bearerHeader("forged-token"), "")
	do(t, o.srv, "GET", "/hello", nil, "")
	do(t, o.srv, "GET", "/me", bearerHeader("alice-token"), "")
	recs := o.security()
	type row struct {
		level              zapcore.Level
		word, route, cat   string
		action, statusText string
	}
	want := []row{
		{zapcore.InfoLevel, "authentication-required", "/me", "[authentication]", "svc.authentication.refused", "401"},
		{zapcore.WarnLevel, "authentication-required", "", "[authentication]", "svc.authentication.refused", "401"},
		{zapcore.WarnLevel, "insufficient-scope", "/admin", "[web]", "svc.authorization.refused", "403"},
		{zapcore.WarnLevel, "ambiguous-credentials", "/me", "[authentication]", "svc.authentication.refused", "400"},
		{zapcore.WarnLevel, "signing-keys-unavailable", "/me", "[authentication]", "svc.authentication.refused", "503"},
	}
	if len(recs) != len(want) {
		for _, r := range recs {
			t.Log(r.Message)
		}
		t.Fatalf("%d records, want %d", len(recs), len(want))
	}
	for i, w := range want {
		f := recs[i].ContextMap()
		if recs[i].Level != w.level || f["error.type"] != w.word || f["http.route"] != w.route ||
			fmt.Sprint(f["event.category"]) != w.cat || f["event.action"] != w.action ||
			fmt.Sprint(f["http.response.status_code"]) != w.statusText {
			t.Errorf("record %d: %v %v", i, recs[i].Level, f)
		}
	}
}

func TestOneRecordPerKindPerAddressPerMinute(t *testing.T) {
	o := observedGate(t, exampleRouter(), newFake())
	for i := 0; i < 5; i++ {
		do(t, o.srv, "GET", "/me", bearerHeader("expired-token"), "")
	}
	do(t, o.srv, "GET", "/me", bearerHeader("forged-token"), "") // another kind: written
	if n := len(o.security()); n != 2 {
		t.Fatalf("%d records in the first minute, want 2", n)
	}
	*o.now = o.now.Add(time.Minute)
	do(t, o.srv, "GET", "/me", bearerHeader("expired-token"), "")
	recs := o.security()
	if len(recs) != 3 || recs[2].ContextMap()["svc.security.suppressed"] != int64(4) {
		t.Fatalf("%d records; last %v", len(recs), recs[len(recs)-1].ContextMap())
	}
}

func TestRequestValuesAreCutAndEscaped(t *testing.T) {
	o := observedGate(t, exampleRouter(), newFake())
	// Go's client refuses control characters in headers: the sanitiser is
	// checked directly for those, and through the server for length and a
	// DEL-free 10 kB value.
	ua := "evil level=ERROR forged=1 é" + strings.Repeat("x", 10_000)
	h := bearerHeader("expired-token")
	h.Set("User-Agent", ua)
	do(t, o.srv, "GET", "/me", h, "")
	got := o.security()[0].ContextMap()["user_agent.original"].(string)
	if len([]rune(got)) > 256+3*8 || strings.ContainsAny(got, "\x1b\r\n") {
		t.Fatalf("user agent not cut or escaped: %d %q", len(got), got[:40])
	}
	for in, want := range map[string]string{
		"a\r\nb":        `a\x0d\x0ab`,
		"\x1b[31m":      `\x1b[31m`,
		"ok":            "ok",
		"tab\there":     `tab\x09here`,
		"bad\xffutf8":   `bad\ufffdutf8`,
		"\u2028":        `\u2028`,
		"é":             "é",
		"\x7f\u0085end": `\x7f\x85end`,
	} {
		if got := authn.Clean(in); got != want {
			t.Errorf("Clean(%q) = %q, want %q", in, got, want)
		}
	}
	if n := len([]rune(authn.Clean(strings.Repeat("é", 1000)))); n != 256 {
		t.Errorf("cut to %d runes", n)
	}
}

// Regression: issue 14 item 8.
// Bidi controls and the other format characters reach a security record
// escaped, never raw: a User-Agent holding U+202E could otherwise make a
// reader see the record's text in another order (Trojan Source).
func TestRecordsEscapeBidiAndFormatCharacters(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"a\u202ab", `a\u202ab`}, // LRE
		{"a\u202bb", `a\u202bb`}, // RLE
		{"a\u202cb", `a\u202cb`}, // PDF
		{"a\u202db", `a\u202db`}, // LRO
		{"a\u202eb", `a\u202eb`}, // RLO
		{"a\u2066b", `a\u2066b`}, // LRI
		{"a\u2067b", `a\u2067b`}, // RLI
		{"a\u2068b", `a\u2068b`}, // FSI
		{"a\u2069b", `a\u2069b`}, // PDI
		{"a\u200eb", `a\u200eb`}, // LRM
		{"a\u200fb", `a\u200fb`}, // RLM
		{"a\u061cb", `a\u061cb`}, // ALM
		{"a\u200bb", `a\u200bb`}, // zero-width space
		{"a\u200db", `a\u200db`}, // zero-width joiner
		{"a\ufeffb", `a\ufeffb`}, // BOM
		{"a\u00adb", `a\u00adb`}, // soft hyphen
		{"a\u2028b\u2029", `a\u2028b\u2029`},
		{"a\U000e0001b", `a\U000e0001b`}, // language tag, beyond the BMP
		{"admin\u202e\u2066nimda", `admin\u202e\u2066nimda`},
		{"é ü 中文 \u05d0", "é ü 中文 \u05d0"}, // letters, Hebrew included, stay readable
	} {
		if got := authn.Clean(c.in); got != c.want {
			t.Errorf("Clean(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	// Through a server: the User-Agent of a refused request.
	o := observedGate(t, exampleRouter(), newFake())
	h := bearerHeader("expired-token")
	h.Set("User-Agent", "curl\u202e\u2066/8.5.0")
	do(t, o.srv, "GET", "/me", h, "")
	recs := o.security()
	if len(recs) != 1 {
		t.Fatalf("%d records", len(recs))
	}
	if got := recs[0].ContextMap()["user_agent.original"]; got != `curl\u202e\u2066/8.5.0` {
		t.Fatalf("user_agent.original = %q", got)
	}
}

func TestSpanAnnotation(t *testing.T) {
	o := observedGate(t, exampleRouter(), newFake(), authn.EndUser(true))
	do(t, o.srv, "GET", "/me", bearerHeader("alice-token"), "")   // enduser.id alice
	do(t, o.srv, "GET", "/me", bearerHeader("expired-token"), "") // signature verified: names the caller
	do(t, o.srv, "GET", "/me", bearerHeader("forged-token"), "")  // names nobody
	spans := o.spans.Ended()
	if len(spans) != 3 {
		t.Fatalf("%d spans", len(spans))
	}
	attr := func(i int, k string) (string, bool) {
		for _, a := range spans[i].Attributes() {
			if string(a.Key) == k {
				return a.Value.AsString(), true
			}
		}
		return "", false
	}
	if v, _ := attr(0, "enduser.id"); v != "alice" {
		t.Errorf("authenticated span enduser.id = %q", v)
	}
	if _, has := attr(0, "svc.authentication.refusal"); has {
		t.Error("served request carries a refusal")
	}
	if v, _ := attr(1, "svc.authentication.refusal"); v != "expired" {
		t.Errorf("refusal attribute %q", v)
	}
	if v, _ := attr(1, "enduser.id"); v != "alice" {
		t.Errorf("a refusal whose signature verified: enduser.id = %q, want alice", v)
	}
	if _, has := attr(2, "enduser.id"); has {
		t.Error("a forged token named a caller")
	}
	if spans[1].Status().Code != 0 {
		t.Errorf("span status set on a 4xx: %v", spans[1].Status())
	}
	if _, has := attr(1, "error.type"); has {
		t.Error("error.type set on the span of a 4xx")
	}
	events := spans[1].Events()
	if len(events) != 1 || events[0].Name != "svc.authentication.refused" ||
		!hasAttr(events[0].Attributes, "error.type", "expired") {
		t.Fatalf("events %v", events)
	}
}

func hasAttr(attrs []attribute.KeyValue, k, v string) bool {
	for _, a := range attrs {
		if string(a.Key) == k && a.Value.AsString() == v {
			return true
		}
	}
	return false
}

func TestEndUserOffByDefault(t *testing.T) {
	o := observedGate(t, exampleRouter(), newFake())
	do(t, o.srv, "GET", "/me", bearerHeader("alice-token"), "")
	for _, a := range o.spans.Ended()[0].Attributes() {
		if a.Key == "enduser.id" {
			t.Fatal("enduser.id without EndUser(true)")
		}
	}
}

func TestWebsocketHandshakesAreRecorded(t *testing.T) {
	o := observedGate(t, wsRouter(), newFake())
	req, _ := http.NewRequestWithContext(context.Background(), "GET", o.srv.URL+"/ws", nil)
	for k, v := range map[string]string{"Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13",
		"Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==", "Authorization": "Bearer forged-token"} {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	recs := o.security()
	if resp.StatusCode != 401 || len(recs) != 1 || recs[0].ContextMap()["http.route"] != "/ws" {
		t.Fatalf("%d, %d records", resp.StatusCode, len(recs))
	}
}

var _ = chi.NewRouter
