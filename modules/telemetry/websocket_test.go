package telemetry_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/telemetry"
)

func wsEcho(w http.ResponseWriter, r *http.Request) {
	p, _ := authn.PrincipalFrom(r.Context())
	c, err := websocket.Accept(w, r, nil)
	if err != nil {
		return
	}
	defer c.CloseNow()
	ctx := r.Context()
	_, msg, err := c.Read(ctx)
	if err != nil {
		return
	}
	_ = c.Write(ctx, websocket.MessageText, []byte(p.Subject+": "+string(msg)))
	c.Close(websocket.StatusNormalClosure, "")
}

// A websocket lives through the wrapper's response writer (Hijack found
// through it) and is logged as the 101 it was.
func TestWebsocketThroughTheWrapper(t *testing.T) {
	h, logs := stack(t, nil)
	srv := httptest.NewServer(h)
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, resp, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(srv.URL, "http")+"/ws",
		&websocket.DialOptions{HTTPHeader: bearerHeader("alice-token")})
	if err != nil {
		t.Fatalf("handshake through the wrapper: %v", err)
	}
	defer c.CloseNow()
	if resp.Header.Get("X-Request-ID") == "" {
		t.Error("the handshake's answer carries no X-Request-ID")
	}
	if err := c.Write(ctx, websocket.MessageText, []byte("ping")); err != nil {
		t.Fatal(err)
	}
	_, msg, err := c.Read(ctx)
	if err != nil || string(msg) != "alice: ping" {
		t.Fatalf("echo %q %v", msg, err)
	}
	// The server's handler returns after its close frame; the record is
	// written then.
	if _, _, err := c.Read(ctx); websocket.CloseStatus(err) != websocket.StatusNormalClosure {
		t.Fatalf("close: %v", err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for logs.FilterLoggerName(telemetry.AccessLogger).Len() == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	f := fieldsOf(only(t, logs, telemetry.AccessLogger))
	if f["http.response.status_code"] != int64(http.StatusSwitchingProtocols) || f["http.route"] != "/ws" {
		t.Fatalf("access record %v", f)
	}
}

// Streaming handlers flush through the wrapper, by type assertion and by
// http.ResponseController.
func TestFlushThroughTheWrapper(t *testing.T) {
	h := newTelemetry(t, telemetry.AccessLog(nil)).Handler(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("a"))
		w.(http.Flusher).Flush()
		if err := http.NewResponseController(w).Flush(); err != nil {
			t.Errorf("ResponseController.Flush: %v", err)
		}
	}))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/", nil))
	if !w.Flushed || w.Body.String() != "a" {
		t.Fatalf("flushed %v body %q", w.Flushed, w.Body)
	}
}
