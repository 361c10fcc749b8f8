package fxsvc_test

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"go.uber.org/fx"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/svckit/svc/fxsvc"
	svcerrors "github.com/svckit/svc/modules/errors"
	"github.com/svckit/svc/modules/metrics"
)

// holdIdle opens a keep-alive connection, has one request answered on it
// and leaves it open, idle.
func holdIdle(t *testing.T, addr string) (net.Conn, *bufio.Reader) {
	t.Helper()
	c := dialRaw(t, addr)
	if _, err := io.WriteString(c, "GET /ok HTTP/1.1\r\nHost: svc.test\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(c)
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Close {
		t.Fatalf("%d close=%v: want a kept-alive 200", resp.StatusCode, resp.Close)
	}
	return c, br
}

func dialRaw(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// eventually waits, within a deadline that only catches a hang, for cond.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("still not so after 10s: %s", what)
		}
	}
}

// freshGet asks for /ok on a connection of its own.
func freshGet(addr string) (*http.Response, error) {
	c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: false}}
	defer c.CloseIdleConnections()
	resp, err := c.Get("http://" + addr + "/ok")
	if err != nil {
		return nil, err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp, nil
}

// shedTotal reads the shed-connections counter of one reason from a scrape.
func shedTotal(t *testing.T, m *metrics.Metrics, reason string) int {
	t.Helper()
	re := regexp.MustCompile(`(?m)^svc_http_server_shed_connections_total\{[^}]*svc_http_server_shed_reason="` + reason + `"[^}]*\} (\d+)$`)
	got := re.FindStringSubmatch(scrapeBody(t, m))
	if got == nil {
		t.Fatalf("no svc_http_server_shed_connections_total for %s in the scrape", reason)
	}
	n, _ := strconv.Atoi(got[1])
	return n
}

// Regression: issue 25 item 3.
// Idle keep-alive connections filling the cap do not lock a new client
// out: the oldest idle ones are closed to make room, and answers stop
// keeping connections alive while the server is under pressure. What was
// shed is counted and summed up in one log line.
func TestIdleConnectionsMakeRoomForANewClient(t *testing.T) {
	metricsEnvClean(t)
	t.Setenv("SVC_METRICS_EXPORTER", "prometheus")
	core, logs := observer.New(zap.InfoLevel)
	var m *metrics.Metrics
	app, srv := startApp(t, fx.Supply(wsRouter(), zap.New(core)), fxsvc.Metrics(), fx.Populate(&m),
		fxsvc.Serve(fxsvc.Addr("127.0.0.1:0"), fxsvc.MaxConnections(10), fxsvc.ReadHeaderTimeout(time.Minute),
			fxsvc.DrainTimeout(200*time.Millisecond)))
	stopped := false
	defer func() {
		if !stopped {
			app.RequireStop()
		}
	}()
	// Eight idle: below the pressure mark (nine tenths of 10).
	var held []net.Conn
	var readers []*bufio.Reader
	for i := range 8 {
		c, br := holdIdle(t, srv.Addr())
		held, readers = append(held, c), append(readers, br)
		// The server books a connection idle just after the client has
		// read its answer: wait for it, so that the idle order is the
		// order dialled and held[0] is the oldest.
		eventually(t, fmt.Sprintf("%d idle connections", i+1), func() bool { return fxsvc.IdleConnections(srv) == i+1 })
	}
	// Two that send nothing take the server to its cap.
	dialRaw(t, srv.Addr())
	dialRaw(t, srv.Addr())

	resp, err := freshGet(srv.Addr())
	if err != nil {
		t.Fatalf("a new client was not served beside idle connections filling the cap: %v", err)
	}
	if resp.StatusCode != http.StatusOK || !resp.Close {
		t.Fatalf("%d close=%v: want 200 with Connection: close under pressure", resp.StatusCode, resp.Close)
	}
	// The oldest idle connection was the one closed.
	_ = held[0].SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := readers[0].ReadByte(); !errors.Is(err, io.EOF) {
		t.Fatalf("the oldest idle connection is still open: %v", err)
	}
	idle, declined, refused := fxsvc.ShedCounts(srv)
	if idle < 1 || declined < 1 || refused != 0 {
		t.Fatalf("shed idle=%d declined=%d refused=%d: want idle and declined counted, none refused", idle, declined, refused)
	}
	if got := shedTotal(t, m, "idle"); got != int(idle) {
		t.Fatalf("metric idle=%d, counted %d", got, idle)
	}
	if got := shedTotal(t, m, "keep_alive"); got < 1 {
		t.Fatalf("metric keep_alive=%d", got)
	}
	app.RequireStop()
	stopped = true
	lines := logs.FilterMessage("svc: HTTP connections shed under load (SVC_HTTP_MAX_CONNECTIONS)").All()
	if len(lines) != 1 {
		t.Fatalf("%d summary lines, want one", len(lines))
	}
	f := lines[0].ContextMap()
	if f["idle_closed"] != idle || f["keep_alive_declined"] != declined || f["max_connections"] != int64(10) {
		t.Fatalf("summary %v, counted idle=%d declined=%d", f, idle, declined)
	}
}

// Regression: issue 25 item 3.
// At the cap, with no idle connection to close, a new connection is reset
// at once rather than left to time out in the listen backlog; once a
// connection ends, new clients are served again.
func TestConnectionsBeyondTheCapAreRefusedAtOnce(t *testing.T) {
	app, srv := startApp(t, fx.Supply(wsRouter()),
		fxsvc.Serve(fxsvc.Addr("127.0.0.1:0"), fxsvc.MaxConnections(4), fxsvc.ReadHeaderTimeout(time.Minute),
			fxsvc.DrainTimeout(200*time.Millisecond)))
	defer app.RequireStop()
	var quiet []net.Conn
	for range 4 {
		quiet = append(quiet, dialRaw(t, srv.Addr()))
	}
	// The reset may come before the dial returns, or at the first read.
	over, err := net.Dial("tcp", srv.Addr())
	if err == nil {
		defer over.Close()
		_, _ = io.WriteString(over, "GET /ok HTTP/1.1\r\nHost: svc.test\r\n\r\n")
		_ = over.SetReadDeadline(time.Now().Add(10 * time.Second))
		var n int
		if n, err = over.Read(make([]byte, 1)); n != 0 {
			t.Fatalf("read %d bytes over the cap", n)
		}
	}
	if err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("%v: want the connection over the cap reset at once", err)
	}
	if _, _, refused := fxsvc.ShedCounts(srv); refused != 1 {
		t.Fatalf("refused %d, want 1", refused)
	}
	_ = quiet[0].Close()
	eventually(t, "a new client served once a connection ended", func() bool {
		resp, err := freshGet(srv.Addr())
		return err == nil && resp.StatusCode == http.StatusOK
	})
}

// Regression: issue 25 item 3.
// SVC_HTTP_MAX_CONNECTIONS sets the cap, the option wins over it.
func TestMaxConnectionsSettingsAreRead(t *testing.T) {
	t.Setenv("SVC_HTTP_MAX_CONNECTIONS", "250")
	app, srv := startApp(t, fx.Supply(chi.NewRouter()), fxsvc.Serve(fxsvc.Addr("127.0.0.1:0")))
	app.RequireStop()
	if got := fxsvc.ServerMaxConnections(srv); got != 250 {
		t.Fatalf("cap %d from SVC_HTTP_MAX_CONNECTIONS=250", got)
	}
	app, srv = startApp(t, fx.Supply(chi.NewRouter()), fxsvc.Serve(fxsvc.Addr("127.0.0.1:0"), fxsvc.MaxConnections(7)))
	app.RequireStop()
	if got := fxsvc.ServerMaxConnections(srv); got != 7 {
		t.Fatalf("cap %d: the option should win", got)
	}
}

// The default cap leaves a tenth of the descriptor limit, at least 64, to
// the process's other files.
func TestDefaultMaxConnectionsFollowsTheDescriptorLimit(t *testing.T) {
	for _, tc := range []struct {
		limit uint64
		want  int
	}{
		{0, 10_000}, // unknown
		{1, 1},
		{100, 50},
		{256, 192},
		{1024, 922},
		{2048, 1844},
		{1 << 40, 1 << 20},
		{^uint64(0), 1 << 20}, // unlimited
	} {
		if got := fxsvc.DefaultMaxConnections(tc.limit); got != tc.want {
			t.Errorf("limit %d: cap %d, want %d", tc.limit, got, tc.want)
		}
	}
}

// Regression: issue 25 item 5.
// The drain warning counts every connection the cut ends: requests whose
// handler already answered while net/http still reads their trickling
// body, and requests whose header is still arriving, not only running
// handlers.
func TestDrainWarningCountsTheConnectionsCut(t *testing.T) {
	r := chi.NewRouter()
	answered := make(chan struct{}, 8)
	r.Post("/upload", func(w http.ResponseWriter, _ *http.Request) {
		// Answers without reading the body: net/http reads the rest of it
		// after the handler returns, before it writes the answer.
		_, _ = io.WriteString(w, "ok")
		answered <- struct{}{}
	})
	core, logs := observer.New(zap.InfoLevel)
	app, srv := startApp(t, fx.Supply(r, zap.New(core)),
		fxsvc.Serve(fxsvc.Addr("127.0.0.1:0"), fxsvc.DrainTimeout(200*time.Millisecond)))
	const trickling, halfHeaders = 3, 2
	for range trickling {
		c := dialRaw(t, srv.Addr())
		_, _ = io.WriteString(c, "POST /upload HTTP/1.1\r\nHost: svc.test\r\nContent-Length: 100000\r\n\r\na")
	}
	for range trickling {
		select {
		case <-answered:
		case <-time.After(10 * time.Second):
			t.Fatal("the handler never ran")
		}
	}
	for range halfHeaders {
		c := dialRaw(t, srv.Addr())
		_, _ = io.WriteString(c, "POST /upload HTTP/1.1\r\nHost: svc.test\r\n")
	}
	eventually(t, "every connection counted", func() bool { return fxsvc.OpenConnections(srv) == trickling+halfHeaders })
	app.RequireStop()
	lines := logs.FilterMessage("svc: requests still running after the drain timeout were cut off (SVC_HTTP_DRAIN_TIMEOUT)").All()
	if len(lines) != 1 {
		t.Fatalf("%d drain warnings, want one", len(lines))
	}
	if got := lines[0].ContextMap()["still_running"]; got != int64(trickling+halfHeaders) {
		t.Fatalf("still_running %v, want %d", got, trickling+halfHeaders)
	}
}

// Regression: issue 25 item 4, through the server's own connections.
// A refusal of a request whose body is still arriving is answered at once
// and read whole by the client: the connection closes after it (half
// closed first, as net/http does, so the unread body does not reset the
// answer away).
func TestARefusalOfATrickledBodyReachesTheClient(t *testing.T) {
	r := chi.NewRouter()
	r.Post("/upload", func(w http.ResponseWriter, r *http.Request) {
		svcerrors.Refuse(w, r, &svcerrors.RateLimitExceeded{})
	})
	app, srv := startApp(t, fx.Supply(r), fxsvc.Errors(), fxsvc.Serve(fxsvc.Addr("127.0.0.1:0")))
	defer app.RequireStop()
	for range 20 {
		c := dialRaw(t, srv.Addr())
		_, _ = io.WriteString(c, "POST /upload HTTP/1.1\r\nHost: svc.test\r\nContent-Length: 100000\r\n\r\n"+strings.Repeat("a", 20000))
		_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("no answer while the body trickles: %v", err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusTooManyRequests || !resp.Close || !strings.Contains(string(body), "rate-limit-exceeded") {
			t.Fatalf("%d close=%v %q %v", resp.StatusCode, resp.Close, body, err)
		}
		_ = c.Close()
	}
}
