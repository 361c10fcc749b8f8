package main

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"go.uber.org/fx"
	"go.uber.org/fx/fxtest"
	"go.uber.org/zap"

	"github.com/svckit/svc/devissuer"
	"github.com/svckit/svc/fxsvc"
)

// Regression: issue 14 item 12.
// Stopping the example closes its websockets with 1001 (going away).
func TestStopClosesTheEchoWebsocketWithGoingAway(t *testing.T) {
	t.Setenv("SVC_HTTP_ADDR", "127.0.0.1:0")
	var srv *fxsvc.Server
	var iss *devissuer.Issuer
	app := fxtest.New(t, append(options(), fx.Decorate(func() *zap.Logger { return zap.NewNop() }), fx.Populate(&srv, &iss))...)
	app.RequireStart()
	base := "http://" + srv.Addr()
	reader, _ := iss.Mint(devissuer.Token{Subject: "alice", Scopes: []string{"read"}})
	waitForKeys(t, base+"/me", reader)

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	ws := "ws" + strings.TrimPrefix(base, "http") + "/ws"
	c, _, err := websocket.Dial(ctx, ws, &websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"Bearer " + reader}}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	if err := c.Write(ctx, websocket.MessageText, []byte("hi")); err != nil {
		t.Fatal(err)
	}
	if _, msg, err := c.Read(ctx); err != nil || string(msg) != "alice: hi" {
		t.Fatalf("echo %q %v", msg, err)
	}
	read := make(chan error, 1)
	go func() {
		_, _, err := c.Read(ctx)
		read <- err
	}()
	app.RequireStop()
	if err := <-read; websocket.CloseStatus(err) != websocket.StatusGoingAway {
		t.Fatalf("close status %v (%v), want 1001", websocket.CloseStatus(err), err)
	}
}
