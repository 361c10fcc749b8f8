package svcerrors_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"

	svcerrors "github.com/svckit/svc/modules/errors"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

type format struct {
	name      string
	res       *svcerrors.Responses
	mediaType string
}

func formats() []format {
	return []format{
		{"rfc9457", svcerrors.New(svcerrors.DocsURL("https://docs.example.test/errors")), "application/problem+json"},
		{"tmf630", svcerrors.NewTMF("SVC", svcerrors.KindDocs, svcerrors.DocsURL("https://docs.example.test/errors")), "application/json"},
	}
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, got, "", "  "); err != nil {
		t.Fatalf("body is not JSON: %v\n%s", err, got)
	}
	pretty.WriteByte('\n')
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, pretty.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden file missing (run go test -update): %v", err)
	}
	if !bytes.Equal(pretty.Bytes(), want) {
		t.Fatalf("body differs from %s\n got: %s\nwant: %s", path, pretty.Bytes(), want)
	}
}

// serveRouted answers err through a chi router, the errors middleware and
// the Handler adapter, on a real listener.
func serveRouted(t *testing.T, res *svcerrors.Responses, err error) *http.Response {
	t.Helper()
	r := chi.NewRouter()
	r.Use(res.Middleware)
	r.Method(http.MethodGet, "/orders/{id}", svcerrors.Handler(func(http.ResponseWriter, *http.Request) error {
		return fmt.Errorf("place order: %w", err)
	}))
	srv := httptest.NewServer(r)
	t.Cleanup(srv.Close)
	resp, e := http.Get(srv.URL + "/orders/42")
	if e != nil {
		t.Fatal(e)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func TestEveryKindBothFormatsRoutedAndRaw(t *testing.T) {
	for _, f := range formats() {
		for _, tc := range rejectionTable() {
			t.Run(f.name+"/"+tc.name, func(t *testing.T) {
				resp := serveRouted(t, f.res, tc.err)
				routed, _ := io.ReadAll(resp.Body)

				rec := httptest.NewRecorder()
				f.res.Render(tc.err, "/orders/42").Write(rec)
				raw := rec.Body.Bytes()

				if !bytes.Equal(routed, raw) {
					t.Fatalf("routed and raw bodies differ\nrouted: %s\n   raw: %s", routed, raw)
				}
				golden(t, filepath.Join("testdata", f.name, tc.name+".json"), routed)

				for _, h := range []http.Header{resp.Header, rec.Header()} {
					checkHeaders(t, h, f.mediaType, tc.retryAfter)
				}
				if resp.StatusCode != tc.status || rec.Code != tc.status {
					t.Fatalf("status routed %d raw %d, want %d", resp.StatusCode, rec.Code, tc.status)
				}
				checkBody(t, f, tc, routed)
			})
		}
	}
}

func checkHeaders(t *testing.T, h http.Header, mediaType, retryAfter string) {
	t.Helper()
	if got := h.Get("Content-Type"); got != mediaType {
		t.Errorf("Content-Type = %q, want %q", got, mediaType)
	}
	if got := h.Get("Cache-Control"); got != "no-store" {
		t.Errorf("Cache-Control = %q, want no-store", got)
	}
	if got := h.Get("X-Content-Type-Options"); got != "nosniff" {
		t.Errorf("X-Content-Type-Options = %q, want nosniff", got)
	}
	if got := h.Get("Retry-After"); got != retryAfter {
		t.Errorf("Retry-After = %q, want %q", got, retryAfter)
	}
}

// checkBody asserts the member rules of the spec's tables beyond the golden
// bytes, so that a wrong golden file cannot hide a wrong rule.
func checkBody(t *testing.T, f format, tc kindCase, body []byte) {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	if f.name == "rfc9457" {
		if m["type"] != "https://docs.example.test/errors#"+tc.anchor {
			t.Errorf("type = %v", m["type"])
		}
		if m["status"] != float64(tc.status) || m["instance"] != "/orders/42" {
			t.Errorf("status/instance = %v %v", m["status"], m["instance"])
		}
		if _, has := m["retry_after"]; has != (tc.retryAfter != "") {
			t.Errorf("retry_after present = %v, want %v", has, tc.retryAfter != "")
		}
		return
	}
	wantCode := "SVC-" + strings.ToUpper(tc.anchor)
	if m["code"] != wantCode || m["@type"] != "Error" {
		t.Errorf("code/@type = %v %v, want %s Error", m["code"], m["@type"], wantCode)
	}
	if m["referenceError"] != "https://docs.example.test/errors#"+tc.anchor {
		t.Errorf("referenceError = %v", m["referenceError"])
	}
	for _, member := range []string{"instance", "retry_after", "timeout", "errors", "status", "type"} {
		if _, has := m[member]; has {
			t.Errorf("TMF body carries %q", member)
		}
	}
}

func TestTMFReferenceErrorChoices(t *testing.T) {
	err := &svcerrors.RateLimitExceeded{}
	cases := []struct {
		ref  string
		want any
	}{
		{svcerrors.KindDocs, "https://github.com/svckit/svc/blob/main/docs/errors.md#rate-limit-exceeded"},
		{"https://errors.example.test/{anchor}.html", "https://errors.example.test/rate-limit-exceeded.html"},
		{"https://errors.example.test/all", "https://errors.example.test/all"},
		{"", nil},
	}
	for _, tc := range cases {
		body := svcerrors.NewTMF("ACME", tc.ref).Render(err, "/").Body
		var m map[string]any
		if e := json.Unmarshal(body, &m); e != nil {
			t.Fatal(e)
		}
		if m["referenceError"] != tc.want {
			t.Errorf("ref %q: referenceError = %v, want %v", tc.ref, m["referenceError"], tc.want)
		}
		if m["code"] != "ACME-RATE-LIMIT-EXCEEDED" {
			t.Errorf("code = %v", m["code"])
		}
	}
}

func TestTMFValidationEntriesGoIntoMessage(t *testing.T) {
	err := &svcerrors.ValidationFailed{Errors: []svcerrors.FieldError{
		{Loc: []string{"body", "name"}, Msg: "field required", Type: "missing"},
		{Loc: []string{"query", "limit"}, Msg: "too big", Type: "less_than_equal"},
	}}
	var m svcerrors.TMFError
	if e := json.Unmarshal(svcerrors.NewTMF("X", "").Render(err, "/").Body, &m); e != nil {
		t.Fatal(e)
	}
	for _, part := range []string{"body.name: field required (missing)", "query.limit: too big (less_than_equal)"} {
		if !strings.Contains(m.Message, part) {
			t.Errorf("message %q lacks %q", m.Message, part)
		}
	}
}

// secretish is an error whose message holds what must never reach a client.
type secretish struct{ error }

func TestErrorMessagesNeverReachTheWire(t *testing.T) {
	const leak = "password=hunter2 backend=redis://10.0.0.7 limit=100/s"
	causes := []error{
		&svcerrors.RateLimitExceeded{},
		&svcerrors.DeadlineExceeded{},
		&svcerrors.ValidationFailed{},
		errors.New(leak), // unknown: 500
	}
	for _, f := range formats() {
		for _, cause := range causes {
			err := fmt.Errorf("%s: %w", leak, secretish{fmt.Errorf("%s: %w", leak, cause)})
			resp := serveRouted(t, f.res, err)
			body, _ := io.ReadAll(resp.Body)
			raw := f.res.Render(err, "/x").Body
			for _, b := range [][]byte{body, raw} {
				for _, word := range []string{"hunter2", "redis", "10.0.0.7", "100/s", "password"} {
					if bytes.Contains(b, []byte(word)) {
						t.Fatalf("%s %T: body leaks %q: %s", f.name, cause, word, b)
					}
				}
			}
		}
	}
}

func TestUnknownErrorIsA500ThatSaysNothing(t *testing.T) {
	resp := serveRouted(t, svcerrors.New(), errors.New("nil pointer in billing"))
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 500 || bytes.Contains(body, []byte("billing")) {
		t.Fatalf("got %d %s", resp.StatusCode, body)
	}
	checkHeaders(t, resp.Header, "application/problem+json", "")
	var p svcerrors.ProblemDetail
	if err := json.Unmarshal(body, &p); err != nil || p.Type != "about:blank" || p.Status != 500 {
		t.Fatalf("body %s: %+v %v", body, p, err)
	}
}
