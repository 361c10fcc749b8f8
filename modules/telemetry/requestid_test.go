package telemetry_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/svckit/svc/internal/reqid"
	"github.com/svckit/svc/modules/requestid"
	"github.com/svckit/svc/modules/telemetry"
)

// The caller's ID reaches the response, the access log, the security
// record and the 500 log lines of the gate and of the error format.
func TestRequestIDRoundTrip(t *testing.T) {
	h, logs := stack(t, nil)
	const id = "req-7f3a:42"
	for _, tc := range []struct {
		name, path, token, other string
		status                   int
	}{
		{"security record", "/orders/1", "", "svc.security.events", 401},
		{"gate 500", "/orders/1", "broken-token", "", 500},
		{"handler 500", "/fail", "alice-token", "", 500},
	} {
		t.Run(tc.name, func(t *testing.T) {
			logs.TakeAll()
			r := httptest.NewRequest(http.MethodGet, tc.path, nil)
			if tc.token != "" {
				r.Header = bearerHeader(tc.token)
			}
			r.Header.Set(requestid.Header, id)
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != tc.status || w.Header().Get(requestid.Header) != id {
				t.Fatalf("%d %q, want %d and the caller's ID echoed", w.Code, w.Header().Get(requestid.Header), tc.status)
			}
			if got := fieldsOf(only(t, logs, telemetry.AccessLogger))[requestid.LogField]; got != id {
				t.Errorf("access record: %s = %v", requestid.LogField, got)
			}
			e := only(t, logs, tc.other)
			if got := fieldsOf(e)[requestid.LogField]; got != id {
				t.Errorf("%q record %q: %s = %v", tc.other, e.Message, requestid.LogField, got)
			}
		})
	}
}

func TestMalformedRequestIDIsReplaced(t *testing.T) {
	h, logs := stack(t, nil)
	for _, bad := range []string{"has space", "new\nline", string(make([]byte, reqid.MaxLength+1))} {
		logs.TakeAll()
		r := httptest.NewRequest(http.MethodGet, "/hello", nil)
		r.Header.Set(requestid.Header, bad)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		got := w.Header().Get(requestid.Header)
		if got == bad || !reqid.Valid(got) || len(got) != 32 {
			t.Fatalf("%q answered with ID %q, want a new one", bad, got)
		}
		if f := fieldsOf(only(t, logs, telemetry.AccessLogger)); f[requestid.LogField] != got {
			t.Fatalf("logged ID %v, answered %q", f[requestid.LogField], got)
		}
	}
}

func TestRequestIDsOff(t *testing.T) {
	h, logs := stack(t, []telemetry.Option{telemetry.RequestIDs(false)})
	r := httptest.NewRequest(http.MethodGet, "/hello", nil)
	r.Header.Set(requestid.Header, "abc")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if got := w.Header().Get(requestid.Header); got != "" {
		t.Fatalf("X-Request-ID %q echoed with RequestIDs(false)", got)
	}
	if _, has := fieldsOf(only(t, logs, telemetry.AccessLogger))[requestid.LogField]; has {
		t.Fatal("access record carries an ID with RequestIDs(false)")
	}
}

// With every part off the wrapper hands the server's writer and request to
// next untouched.
func TestAllOffCallsNextDirectly(t *testing.T) {
	var gotW http.ResponseWriter
	var gotR *http.Request
	h := newTelemetry(t, telemetry.RequestIDs(false)).Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotW, gotR = w, r
	}))
	w := httptest.NewRecorder()
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	h.ServeHTTP(w, r)
	if gotW != http.ResponseWriter(w) || gotR != r {
		t.Fatal("the wrapper with everything off still wrapped the writer or the request")
	}
}

func TestWellFormedRequestIDsAreKeptAndOthersReplaced(t *testing.T) {
	cases := []struct {
		name, in string
		kept     bool
	}{
		{"uuid", "3f2b8c1e-9a4d-4e6f-8b7a-1c2d3e4f5a6b", true},
		{"ulid", "01HZX3J8K9M2N4P6Q8R0S2T4V6", true},
		{"base64", "aGVsbG8+d29ybGQ/Zm9v=", true},
		{"at the limit", strings.Repeat("a", reqid.MaxLength), true},
		{"absent", "", false},
		{"too long", strings.Repeat("a", reqid.MaxLength+1), false},
		{"space", "abc def", false},
		{"newline", "abc\ndef", false},
		{"quote", `abc"def`, false},
		{"non-ASCII", "abcé", false},
		{"bidi control", "abc\u202edef", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var seen string
			h := newTelemetry(t).Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				seen = requestid.From(r.Context())
			}))
			req := httptest.NewRequest("GET", "/", nil)
			if c.in != "" {
				req.Header.Set(requestid.Header, c.in)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			echoed := rec.Header().Get(requestid.Header)
			if echoed != seen || seen == "" {
				t.Fatalf("context %q, echoed %q", seen, echoed)
			}
			if c.kept != (seen == c.in) {
				t.Fatalf("in %q → %q, kept = %t, want %t", c.in, seen, seen == c.in, c.kept)
			}
			if !c.kept && (len(seen) != 32 || !reqid.Valid(seen)) {
				t.Fatalf("generated ID %q is not 32 valid characters", seen)
			}
		})
	}
}

// Many callers at once, over a real connection: every request gets its own
// ID, and the same ID reaches the response header, the access record
// and, on an error, the error format's 500 line; a refusal and a 500 are
// problem documents carrying it in their header. The admitted requests
// pass their route's scope marker: the gate's caller reached it.
func TestRequestIDsUniqueAcrossConcurrentRequests(t *testing.T) {
	h, logs := stack(t, nil)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	kinds := []struct {
		path, token string
		status      int
		problem     bool
	}{
		{"/orders/1", "alice-token", 200, false},
		{"/orders/1", "", 401, true},
		{"/fail", "alice-token", 500, true},
	}
	const workers, each = 8, 30
	type answer struct {
		id     string
		status int
	}
	answers := make(chan answer, workers*each)
	errs := make(chan error, workers*each)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				k := kinds[(w+i)%len(kinds)]
				req, _ := http.NewRequest(http.MethodGet, srv.URL+k.path, nil)
				if k.token != "" {
					req.Header = bearerHeader(k.token)
				}
				resp, err := srv.Client().Do(req)
				if err != nil {
					errs <- err
					return
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				id := resp.Header.Get(requestid.Header)
				if resp.StatusCode != k.status || len(id) != 32 || !reqid.Valid(id) {
					errs <- fmt.Errorf("%s: %d with ID %q, want %d and 32 hex digits", k.path, resp.StatusCode, id, k.status)
					return
				}
				var doc map[string]any
				isProblem := resp.Header.Get("Content-Type") == "application/problem+json" && json.Unmarshal(body, &doc) == nil &&
					doc["status"] == float64(k.status)
				if isProblem != k.problem {
					errs <- fmt.Errorf("%s: %d body %q (%s), problem document %t", k.path, resp.StatusCode, body, resp.Header.Get("Content-Type"), isProblem)
					return
				}
				answers <- answer{id, resp.StatusCode}
			}
		})
	}
	wg.Wait()
	close(answers)
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	status := map[string]int{}
	for a := range answers {
		if _, dup := status[a.id]; dup {
			t.Fatalf("ID %s answered twice", a.id)
		}
		status[a.id] = a.status
	}
	if len(status) != workers*each {
		t.Fatalf("%d answers, want %d", len(status), workers*each)
	}
	logged, failed := map[string]bool{}, map[string]bool{}
	for _, e := range logs.All() {
		f := fieldsOf(e)
		id, _ := f[requestid.LogField].(string)
		switch {
		case e.LoggerName == telemetry.AccessLogger:
			if logged[id] || f["http.response.status_code"] != int64(status[id]) {
				t.Fatalf("access record %v for ID %q answered %d (twice: %t)", f, id, status[id], logged[id])
			}
			logged[id] = true
		case e.Message == "svc: unhandled handler error":
			if status[id] != 500 {
				t.Fatalf("500 line with ID %q, which answered %d", id, status[id])
			}
			failed[id] = true
		}
	}
	for id, code := range status {
		if !logged[id] || failed[id] != (code == 500) {
			t.Fatalf("ID %q (%d): access record %t, 500 line %t", id, code, logged[id], failed[id])
		}
	}
}
