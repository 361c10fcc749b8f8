package fxsvc_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/go-chi/chi/v5"
	"go.uber.org/fx"
	"go.uber.org/fx/fxtest"

	"github.com/svckit/svc/fxsvc"
)

// wsRouter serves /ws: a websocket echo that closes with 1001 when the
// server starts draining, as a long-lived handler should.
func wsRouter() *chi.Mux {
	r := chi.NewRouter()
	r.Get("/ok", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "fine") })
	r.Get("/ws", func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer c.CloseNow()
		done := make(chan struct{})
		go func() {
			defer close(done)
			for {
				typ, msg, err := c.Read(r.Context())
				if err != nil {
					return
				}
				if err := c.Write(r.Context(), typ, msg); err != nil {
					return
				}
			}
		}()
		select {
		case <-fxsvc.ShuttingDown(r.Context()):
			_ = c.Close(websocket.StatusGoingAway, "server shutting down")
		case <-done:
		}
		<-done
	})
	return r
}

func dialWS(t *testing.T, srv *fxsvc.Server) *websocket.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws://"+srv.Addr()+"/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.CloseNow() })
	return c
}

func echoOnce(t *testing.T, c *websocket.Conn, msg string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Write(ctx, websocket.MessageText, []byte(msg)); err != nil {
		t.Fatalf("write: %v", err)
	}
	if _, got, err := c.Read(ctx); err != nil || string(got) != msg {
		t.Fatalf("echo %q: %q %v", msg, got, err)
	}
}

// Issue 14 item 3's pitfall: the read and write deadlines set for a request
// must not outlive its hijack. net/http clears them on Hijack; this keeps
// any wrapper of the server's from undoing that.
func TestWebsocketOutlivesTheServerTimeouts(t *testing.T) {
	app, srv := startApp(t, fx.Supply(wsRouter()), fxsvc.Serve(fxsvc.Addr("127.0.0.1:0"),
		fxsvc.ReadTimeout(100*time.Millisecond), fxsvc.WriteTimeout(100*time.Millisecond),
		fxsvc.ReadHeaderTimeout(100*time.Millisecond), fxsvc.IdleTimeout(100*time.Millisecond)))
	defer app.RequireStop()
	c := dialWS(t, srv)
	echoOnce(t, c, "first")
	// Well past both deadlines: a socket still bound by them is dead now.
	time.Sleep(time.Second)
	echoOnce(t, c, "second")
	_ = c.Close(websocket.StatusNormalClosure, "")
}

// Regression: issue 14 item 3.
// An idle keep-alive connection is closed after the idle timeout instead
// of being held (and its descriptor with it) forever.
func TestIdleKeepAliveConnectionIsClosed(t *testing.T) {
	app, srv := startApp(t, fx.Supply(wsRouter()), fxsvc.Serve(fxsvc.Addr("127.0.0.1:0"), fxsvc.IdleTimeout(200*time.Millisecond)))
	defer app.RequireStop()
	conn, err := net.Dial("tcp", srv.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, "GET /ok HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(body) != "fine" || resp.Close {
		t.Fatalf("%d %q close=%v", resp.StatusCode, body, resp.Close)
	}
	// Far above the idle timeout, far below forever: the server must have
	// closed the connection by then.
	_ = conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	if _, err := br.ReadByte(); !errors.Is(err, io.EOF) {
		t.Fatalf("idle connection not closed by the server: %v", err)
	}
}

// Regression: issue 14 item 3.
// A header larger than the limit is refused with 431.
func TestMaxHeaderBytesRefusesLargerHeaders(t *testing.T) {
	app, srv := startApp(t, fx.Supply(wsRouter()), fxsvc.Serve(fxsvc.Addr("127.0.0.1:0"), fxsvc.MaxHeaderBytes(1024)))
	defer app.RequireStop()
	req, _ := http.NewRequest("GET", "http://"+srv.Addr()+"/ok", nil)
	req.Header.Set("X-Big", strings.Repeat("a", 8<<10))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Fatalf("status %d", resp.StatusCode)
	}
}

// Regression: issue 14 item 12.
// On stop, a websocket handler watching fxsvc.ShuttingDown closes with
// 1001, and stop waits for it.
func TestStopClosesWebsocketsWithGoingAway(t *testing.T) {
	var srv *fxsvc.Server
	app := fxtest.New(t, fx.Supply(wsRouter()), fxsvc.Serve(fxsvc.Addr("127.0.0.1:0")), fx.Populate(&srv))
	app.RequireStart()
	c := dialWS(t, srv)
	echoOnce(t, c, "before stop")
	read := make(chan error, 1)
	go func() {
		_, _, err := c.Read(context.Background())
		read <- err
	}()
	select {
	case <-fxsvc.Stopping(srv):
		t.Fatal("ShuttingDown closed before stop")
	default:
	}
	app.RequireStop()
	select {
	case <-fxsvc.Stopping(srv):
	default:
		t.Fatal("ShuttingDown not closed by stop")
	}
	err := <-read
	if got := websocket.CloseStatus(err); got != websocket.StatusGoingAway {
		t.Fatalf("close status %v (%v), want 1001", got, err)
	}
}

func TestShuttingDownOutsideARequestNeverCloses(t *testing.T) {
	if ch := fxsvc.ShuttingDown(context.Background()); ch != nil {
		t.Fatalf("got %v, want nil", ch)
	}
}

// Regression: issue 14 item 3.
// A body trickled slower than the read timeout allows is cut off: the
// handler reading it gets an error and answers, instead of waiting forever.
func TestReadTimeoutCutsOffATrickledBody(t *testing.T) {
	r := chi.NewRouter()
	r.Post("/upload", func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.ReadAll(r.Body); err != nil {
			http.Error(w, "body too slow", http.StatusRequestTimeout)
			return
		}
		_, _ = io.WriteString(w, "read it all")
	})
	app, srv := startApp(t, fx.Supply(r), fxsvc.Serve(fxsvc.Addr("127.0.0.1:0"), fxsvc.ReadTimeout(200*time.Millisecond)))
	defer app.RequireStop()
	conn, err := net.Dial("tcp", srv.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// One byte of a 1 MiB body, and no more.
	if _, err := io.WriteString(conn, "POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 1048576\r\n\r\na"); err != nil {
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer while the body trickles: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestTimeout || !strings.Contains(string(body), "body too slow") {
		t.Fatalf("%d %q", resp.StatusCode, body)
	}
}

// A hijacked connection whose handler ignores ShuttingDown is cut off when
// the drain runs out, like any other request still running:
// http.Server.Close leaves hijacked connections open.
func TestDrainTimeoutCutsOffHijackedConnections(t *testing.T) {
	r := chi.NewRouter()
	release, handlerErr := make(chan struct{}), make(chan error, 1)
	defer close(release)
	r.Get("/raw", func(w http.ResponseWriter, _ *http.Request) {
		c, rw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			handlerErr <- err
			return
		}
		_, _ = rw.WriteString("HTTP/1.1 101 Switching Protocols\r\nUpgrade: raw\r\nConnection: Upgrade\r\n\r\n")
		_ = rw.Flush()
		_, err = c.Read(make([]byte, 1)) // the client sends nothing: ends when cut off
		handlerErr <- err
		<-release
	})
	app, srv := startApp(t, fx.Supply(r), fxsvc.Serve(fxsvc.Addr("127.0.0.1:0"), fxsvc.DrainTimeout(100*time.Millisecond)))
	conn, err := net.Dial("tcp", srv.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_, _ = io.WriteString(conn, "GET /raw HTTP/1.1\r\nHost: svc.test\r\nConnection: Upgrade\r\nUpgrade: raw\r\n\r\n")
	br := bufio.NewReader(conn)
	if resp, err := http.ReadResponse(br, nil); err != nil || resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("upgrade: %v %v", resp, err)
	}
	if err := app.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-handlerErr:
		if err == nil {
			t.Fatal("the handler's read succeeded after the drain ran out")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the hijacked connection is still open after the app stopped: its handler still reads")
	}
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := br.ReadByte(); err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("the client's connection is still open after the app stopped: %v", err)
	}
}
