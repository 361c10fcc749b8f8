package telemetry_test

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/svckit/svc/internal/reqid"
	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/bans"
	"github.com/svckit/svc/modules/requestid"
	"github.com/svckit/svc/modules/telemetry"
)

func TestAccessLogRecordsEveryAnswerOfTheGate(t *testing.T) {
	h, logs := stack(t, nil, authn.EndUser(true), authn.Bans(bans.New(bans.Threshold(1))))
	// A forged token starts a ban for 192.0.2.9, so its next request is
	// the gate's 429.
	forger := httptest.NewRequest(http.MethodGet, "/orders/1", nil)
	forger.RemoteAddr = "192.0.2.9:4000"
	forger.Header = bearerHeader("forged-token")
	h.ServeHTTP(httptest.NewRecorder(), forger)

	for _, tc := range []struct {
		name, path, token, addr string
		status                  int
		route, subject          string
	}{
		{"admitted", "/orders/42", "alice-token", "192.0.2.1:1234", 200, "/orders/{id}", "alice"},
		{"no token", "/orders/42", "", "192.0.2.1:1234", 401, "/orders/{id}", ""},
		{"missing scope", "/admin", "alice-token", "192.0.2.1:1234", 403, "/admin", "alice"},
		{"banned", "/orders/7", "alice-token", "192.0.2.9:4000", 429, "/orders/{id}", ""},
		{"keys unavailable", "/orders/7", "nokeys-token", "192.0.2.1:1234", 503, "/orders/{id}", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			logs.TakeAll()
			r := httptest.NewRequest(http.MethodGet, tc.path, nil)
			r.RemoteAddr = tc.addr
			if tc.token != "" {
				r.Header = bearerHeader(tc.token)
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != tc.status {
				t.Fatalf("status %d, want %d: %s", w.Code, tc.status, w.Body)
			}
			e := only(t, logs, telemetry.AccessLogger)
			f := fieldsOf(e)
			id := w.Header().Get(requestid.Header)
			want := map[string]any{
				"http.request.method":       "GET",
				"http.route":                tc.route,
				"http.response.status_code": int64(tc.status),
				"http.response.body.size":   int64(w.Body.Len()),
				"client.address":            strings.Split(tc.addr, ":")[0],
				"http.request.id":           id,
			}
			if tc.subject != "" {
				want["enduser.id"] = tc.subject
			}
			for k, v := range want {
				if f[k] != v {
					t.Errorf("%s = %#v, want %#v", k, f[k], v)
				}
			}
			if _, has := f["enduser.id"]; has && tc.subject == "" {
				t.Errorf("enduser.id %v on a request without a verified subject", f["enduser.id"])
			}
			if d, ok := f["event.duration"].(int64); !ok || d <= 0 {
				t.Errorf("event.duration %#v", f["event.duration"])
			}
			if !reqid.Valid(id) || e.Message != "GET "+tc.route+" "+strconv.Itoa(tc.status) {
				t.Errorf("request id %q, message %q", id, e.Message)
			}
		})
	}
}

func TestAccessLogNamesTheCallerBehindTrustedProxies(t *testing.T) {
	h, logs := stack(t, []telemetry.Option{telemetry.TrustedProxies("10.0.0.0/8")})
	r := httptest.NewRequest(http.MethodGet, "/hello", nil)
	r.RemoteAddr = "10.1.2.3:5555"
	r.Header.Set("X-Forwarded-For", "203.0.113.7, 10.9.9.9")
	h.ServeHTTP(httptest.NewRecorder(), r)
	if got := fieldsOf(only(t, logs, telemetry.AccessLogger))["client.address"]; got != "203.0.113.7" {
		t.Fatalf("client.address %v, want the caller 203.0.113.7", got)
	}

	// A peer that is no trusted proxy cannot name someone else.
	logs.TakeAll()
	r.RemoteAddr = "198.51.100.4:5555"
	h.ServeHTTP(httptest.NewRecorder(), r)
	if got := fieldsOf(only(t, logs, telemetry.AccessLogger))["client.address"]; got != "198.51.100.4" {
		t.Fatalf("client.address %v, want the peer 198.51.100.4", got)
	}
}

func TestAccessLogNeverWritesTheRawPathOfAnUnknownURL(t *testing.T) {
	h, logs := stack(t, nil)
	for _, path := range []string{"/nope/secret-1", "/nope/secret-2"} {
		for _, token := range []string{"", "alice-token"} {
			logs.TakeAll()
			r := httptest.NewRequest(http.MethodGet, path, nil)
			if token != "" {
				r.Header = bearerHeader(token)
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			e := only(t, logs, telemetry.AccessLogger)
			f := fieldsOf(e)
			if _, has := f["http.route"]; has {
				t.Errorf("%s: http.route %v for an unknown URL", path, f["http.route"])
			}
			for k, v := range f {
				if s, ok := v.(string); ok && strings.Contains(s, "secret") {
					t.Errorf("%s: field %s carries the raw path: %q", path, k, s)
				}
			}
			if strings.Contains(e.Message, "secret") || !strings.HasPrefix(e.Message, "GET (no route) ") {
				t.Errorf("message %q", e.Message)
			}
			if f["http.response.status_code"] != int64(w.Code) {
				t.Errorf("status %v, answered %d", f["http.response.status_code"], w.Code)
			}
		}
	}
}

func TestAccessLogOffWritesNothing(t *testing.T) {
	h, logs := stack(t, []telemetry.Option{telemetry.AccessLog(nil)})
	r := httptest.NewRequest(http.MethodGet, "/hello", nil)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if n := logs.FilterLoggerName(telemetry.AccessLogger).Len(); n != 0 {
		t.Fatalf("%d access records with the access log off", n)
	}
	if !reqid.Valid(w.Header().Get(requestid.Header)) {
		t.Fatalf("request IDs are on by default: %q", w.Header().Get(requestid.Header))
	}
}

func TestUnknownMethodsShareOneValue(t *testing.T) {
	h, logs := stack(t, nil)
	r := httptest.NewRequest("BREW", "/hello", nil)
	h.ServeHTTP(httptest.NewRecorder(), r)
	if got := fieldsOf(only(t, logs, telemetry.AccessLogger))["http.request.method"]; got != "_OTHER" {
		t.Fatalf("http.request.method %v, want _OTHER", got)
	}
	for _, m := range []string{"GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"} {
		if telemetry.Method(m) != m {
			t.Errorf("Method(%s) = %s", m, telemetry.Method(m))
		}
	}
	if telemetry.Method("get") != "_OTHER" {
		t.Error("methods are case-sensitive (RFC 9110): get is not GET")
	}
}

// The subject is personal data: written only under authn.EndUser(true).
func TestAccessLogOmitsTheSubjectWithoutEndUser(t *testing.T) {
	h, logs := stack(t, nil)
	r := httptest.NewRequest(http.MethodGet, "/orders/1", nil)
	r.Header = bearerHeader("alice-token")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	f := fieldsOf(only(t, logs, telemetry.AccessLogger))
	if _, has := f["enduser.id"]; has || w.Code != http.StatusOK {
		t.Fatalf("%d, record %v: enduser.id without authn.EndUser(true)", w.Code, f)
	}
}
