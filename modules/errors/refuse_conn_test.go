package svcerrors_test

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"

	svcerrors "github.com/svckit/svc/modules/errors"
)

// refusingServer refuses POST /refused without reading its body and
// serves GET /next; its read timeout is 30 s, as fxsvc's is.
func refusingServer(t *testing.T) string {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("POST /refused", func(w http.ResponseWriter, r *http.Request) {
		svcerrors.Refuse(w, r, &svcerrors.RateLimitExceeded{})
	})
	mux.HandleFunc("GET /next", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "next") })
	srv := httptest.NewUnstartedServer(mux)
	srv.Config.ReadTimeout = 30 * time.Second
	srv.Start()
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://")
}

// Issue 37 item 12: a refusal of a body that is still trickling in closes
// the connection as soon as the answer is written; the server kept the
// socket until its read timeout (30 s), reading the body.
func TestRefuseOfATrickledBodyClosesTheConnectionAtOnce(t *testing.T) {
	addr := refusingServer(t)
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// 8 bytes of 100,000, and no more.
	if _, err := io.WriteString(conn, "POST /refused HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\na=1&acc="); err != nil {
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("no answer while the body trickles: %v", err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusTooManyRequests || !resp.Close {
		t.Fatalf("status %d, close=%v: want 429 with Connection: close", resp.StatusCode, resp.Close)
	}
	// The server closes its side at once: a read sees the end of the
	// stream (or, the trickled byte unread, a reset), not the 10 s
	// deadline. A byte more of body changes nothing.
	_, _ = io.WriteString(conn, "1")
	start := time.Now()
	if _, err := br.ReadByte(); err != io.EOF && !errors.Is(err, syscall.ECONNRESET) {
		t.Fatalf("after the answer: %v after %s, want the server to close the connection", err, time.Since(start).Round(time.Millisecond))
	}
}

// Issue 37 item 12: a refused request whose body arrived whole keeps its
// connection, so a request pipelined behind it is served (a refusal closed
// every connection with a body, losing the next request).
func TestRefuseOfACompleteBodyServesThePipelinedRequest(t *testing.T) {
	addr := refusingServer(t)
	for _, tc := range []struct{ name, first string }{
		{"Content-Length", "POST /refused HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\na=1"},
		{"chunked", "POST /refused HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\na=1\r\n0\r\n\r\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if _, err := io.WriteString(conn, tc.first+"GET /next HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
				t.Fatal(err)
			}
			_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
			br := bufio.NewReader(conn)
			for i, want := range []int{http.StatusTooManyRequests, http.StatusOK} {
				resp, err := http.ReadResponse(br, nil)
				if err != nil {
					t.Fatalf("answer %d: %v", i+1, err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != want || resp.Close {
					t.Fatalf("answer %d: status %d, close=%v, body %q; want %d on a kept connection", i+1, resp.StatusCode, resp.Close, body, want)
				}
			}
		})
	}
}
