package authn_test

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"

	svcerrors "github.com/svckit/svc/modules/errors"
)

// rawPOST writes a form POST's head on a real TCP connection, then as much
// of its body as given (less than Content-Length says: the rest never
// comes, as from a client trickling it), and reads the answer. The read
// bound is far above what an answer takes and far below forever.
func rawPOST(t *testing.T, addr, path, auth, partialBody string, contentLength int) *http.Response {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	head := "POST " + path + " HTTP/1.1\r\nHost: " + addr + "\r\n" +
		"Authorization: " + auth + "\r\n" +
		"Content-Type: application/x-www-form-urlencoded\r\n" +
		"Content-Length: " + strconv.Itoa(contentLength) + "\r\n\r\n"
	if _, err := io.WriteString(conn, head+partialBody); err != nil {
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer while the body trickles: %v", err)
	}
	t.Cleanup(func() { _ = resp.Body.Close() })
	return resp
}

// Regression: issue 14 item 3.
func TestGateNeverWaitsForAnUnreadBody(t *testing.T) {
	r := chi.NewRouter()
	// The handler answers without reading the body: only the gate could
	// block on it.
	r.Post("/form", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "served") })
	srv := gateServer(t, svcerrors.New(), r, newFake())
	addr := strings.TrimPrefix(srv.URL, "http://")
	for _, tc := range []struct {
		name, auth string
		status     int
		anchor     string
		challenge  string
	}{
		{"forged token", "Bearer forged-token", 401, "token-rejected", `Bearer error="invalid_token"`},
		{"no bearer", "Basic YTpi", 401, "authentication-required", "Bearer"},
		{"valid token", "Bearer alice-token", 200, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := rawPOST(t, addr, "/form", tc.auth, "a=1&acc", 1<<20)
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, body %s", resp.StatusCode, body)
			}
			if resp.Header.Get("WWW-Authenticate") != tc.challenge {
				t.Fatalf("challenge %q", resp.Header.Get("WWW-Authenticate"))
			}
			if tc.anchor == "" {
				if string(body) != "served" {
					t.Fatalf("body %q", body)
				}
				return
			}
			if resp.Header.Get("Content-Type") != svcerrors.ProblemMediaType || !strings.Contains(string(body), tc.anchor) {
				t.Fatalf("%s %s", resp.Header.Get("Content-Type"), body)
			}
		})
	}
}

// Regression: issue 14 item 3.
// The gate reads no body, so an access_token form field beside the header
// is not a second credential: the handler gets the request and the whole
// body. (Body tokens, RFC 6750 §2.2, are not accepted.)
func TestFormAccessTokenIsNotACredential(t *testing.T) {
	r := chi.NewRouter()
	r.Post("/form", func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		_, _ = io.WriteString(w, r.PostForm.Get("a")+"|"+r.PostForm.Get("access_token"))
	})
	srv := gateServer(t, svcerrors.New(), r, newFake())
	form := http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}
	for _, tc := range []struct {
		name   string
		auth   string
		status int
		body   string
		anchor string
	}{
		{"with a valid header", "Bearer alice-token", 200, "1|x", ""},
		{"without a header", "", 401, "", "authentication-required"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := form.Clone()
			if tc.auth != "" {
				h.Set("Authorization", tc.auth)
			}
			got := do(t, srv, "POST", "/form", h, "a=1&access_token=x")
			if got.status != tc.status {
				t.Fatalf("status %d %q", got.status, got.body)
			}
			if tc.anchor == "" && got.body != tc.body {
				t.Fatalf("body %q", got.body)
			}
			if tc.anchor != "" && (!strings.Contains(got.body, tc.anchor) || got.header.Get("WWW-Authenticate") != "Bearer") {
				t.Fatalf("%q %q", got.body, got.header.Get("WWW-Authenticate"))
			}
		})
	}
}

// Regression: issue 25 item 4.
// A refusal of a request whose body is still arriving answers at once,
// with Connection: close: under 256 KiB unread, net/http would otherwise
// read the whole body before writing the answer, as slowly as it comes.
func TestRefusalOfATrickledBodyAnswersAtOnce(t *testing.T) {
	r := chi.NewRouter()
	r.Post("/form", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "served") })
	srv := gateServer(t, svcerrors.New(), r, newFake())
	addr := strings.TrimPrefix(srv.URL, "http://")
	for _, tc := range []struct {
		name, auth string
		status     int
		anchor     string
	}{
		{"forged token", "Bearer forged-token", 401, "token-rejected"},
		{"no bearer", "Basic YTpi", 401, "authentication-required"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// 8 bytes of 100,000, and no more: the answer must not wait for
			// the rest (rawPOST's read bound catches a wait).
			resp := rawPOST(t, addr, "/form", tc.auth, "a=1&acc=", 100000)
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tc.status || !strings.Contains(string(body), tc.anchor) {
				t.Fatalf("status %d, body %s", resp.StatusCode, body)
			}
			if !resp.Close || resp.Header.Get("Content-Type") != svcerrors.ProblemMediaType {
				t.Fatalf("close=%v %q: want Connection: close on a refusal with an unread body", resp.Close, resp.Header.Get("Content-Type"))
			}
		})
	}
}
