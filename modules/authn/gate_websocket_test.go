package authn_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/go-chi/chi/v5"

	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/bearer"
	svcerrors "github.com/svckit/svc/modules/errors"
)

func wsRouter() *chi.Mux {
	r := chi.NewRouter()
	r.Get("/ws", func(w http.ResponseWriter, r *http.Request) {
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
	})
	return r
}

func TestWebsocketHandshakeIsGated(t *testing.T) {
	var hookRan bool
	hook := func(_ context.Context, p bearer.Principal, _ *http.Request) (bearer.Principal, error) {
		hookRan = true
		return p, nil
	}
	srv := gateServer(t, svcerrors.New(), wsRouter(), newFake(), authn.Check(hook))
	url := "ws" + strings.TrimPrefix(srv.URL, "http") + "/ws"
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()

	for _, tc := range []struct {
		name      string
		header    http.Header
		challenge string
	}{
		{"no token", nil, "Bearer"},
		{"bad token", bearerHeader("expired-token"), `Bearer error="invalid_token"`},
	} {
		_, resp, err := websocket.Dial(ctx, url, &websocket.DialOptions{HTTPHeader: tc.header})
		if err == nil || resp == nil {
			t.Fatalf("%s: handshake succeeded", tc.name)
		}
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 401 || resp.Header.Get("WWW-Authenticate") != tc.challenge ||
			resp.Header.Get("Content-Type") != svcerrors.ProblemMediaType || !strings.Contains(string(body), "#") {
			t.Fatalf("%s: %d %q %s", tc.name, resp.StatusCode, resp.Header.Get("WWW-Authenticate"), body)
		}
	}

	c, _, err := websocket.Dial(ctx, url, &websocket.DialOptions{HTTPHeader: bearerHeader("alice-token")})
	if err != nil {
		t.Fatalf("handshake with a valid token: %v", err)
	}
	defer c.CloseNow()
	if err := c.Write(ctx, websocket.MessageText, []byte("ping")); err != nil {
		t.Fatal(err)
	}
	_, msg, err := c.Read(ctx)
	if err != nil || string(msg) != "alice: ping" {
		t.Fatalf("echo %q %v", msg, err)
	}
	if !hookRan {
		t.Fatal("the check hook did not run on the handshake")
	}
}
