package svcerrors_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"

	svcerrors "github.com/svckit/svc/modules/errors"
)

func appRouter(res *svcerrors.Responses) http.Handler {
	r := chi.NewRouter()
	if res != nil {
		r.Use(res.Middleware)
	}
	r.Get("/items", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("[]")) })
	r.Get("/private", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="api"`)
		http.Error(w, "token for alice expired", http.StatusUnauthorized)
	})
	r.Get("/own-json", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"mine":true}`))
	})
	r.Get("/bare", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusConflict) })
	r.Get("/stream", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write([]byte("data: 1\n\n"))
		http.NewResponseController(w).Flush()
	})
	return r
}

func get(t *testing.T, h http.Handler, method, path string) (*http.Response, string) {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	req, _ := http.NewRequest(method, srv.URL+path, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func TestFrameworkErrorsTakeTheFormat(t *testing.T) {
	cases := []struct {
		name, method, path string
		status             int
		keepHeader         string
		keepValue          string
		dropped            string
	}{
		{"chi 404", "GET", "/nowhere", 404, "", "", "page not found"},
		{"chi 405 keeps Allow", "DELETE", "/items", 405, "Allow", "GET", ""},
		{"401 keeps WWW-Authenticate", "GET", "/private", 401, "Www-Authenticate", `Bearer realm="api"`, "alice"},
		{"bare status", "GET", "/bare", 409, "", "", ""},
	}
	for _, f := range formats() {
		for _, tc := range cases {
			t.Run(f.name+"/"+tc.name, func(t *testing.T) {
				resp, body := get(t, appRouter(f.res), tc.method, tc.path)
				if resp.StatusCode != tc.status {
					t.Fatalf("status %d, want %d", resp.StatusCode, tc.status)
				}
				checkHeaders(t, resp.Header, f.mediaType, "")
				if tc.keepHeader != "" && !strings.Contains(strings.Join(resp.Header.Values(tc.keepHeader), ","), tc.keepValue) {
					t.Errorf("%s = %q, want it kept (%q)", tc.keepHeader, resp.Header.Values(tc.keepHeader), tc.keepValue)
				}
				if tc.dropped != "" && strings.Contains(body, tc.dropped) {
					t.Errorf("body carries the router's text %q: %s", tc.dropped, body)
				}
				var m map[string]any
				if err := json.Unmarshal([]byte(body), &m); err != nil {
					t.Fatalf("body not JSON: %s", body)
				}
				if f.name == "rfc9457" {
					if m["type"] != "about:blank" || m["title"] != http.StatusText(tc.status) || m["instance"] != tc.path {
						t.Errorf("body %s", body)
					}
				} else {
					want := "SVC-" + strings.ToUpper(strings.ReplaceAll(http.StatusText(tc.status), " ", "-"))
					if m["code"] != want || m["@type"] != "Error" {
						t.Errorf("body %s, want code %s", body, want)
					}
				}
			})
		}
	}
}

func TestOwnResponsesAreLeftAlone(t *testing.T) {
	h := appRouter(svcerrors.New())
	if resp, body := get(t, h, "GET", "/own-json"); resp.StatusCode != 400 || body != `{"mine":true}` ||
		resp.Header.Get("Content-Type") != "application/json" {
		t.Errorf("own JSON error changed: %d %q %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	if resp, body := get(t, h, "GET", "/items"); resp.StatusCode != 200 || body != "[]" {
		t.Errorf("success changed: %d %s", resp.StatusCode, body)
	}
	if resp, body := get(t, h, "GET", "/stream"); resp.StatusCode != 200 || body != "data: 1\n\n" {
		t.Errorf("stream changed: %d %q", resp.StatusCode, body)
	}
	if resp, body := get(t, h, "HEAD", "/nowhere"); resp.StatusCode != 404 || body != "" ||
		resp.Header.Get("Content-Type") != svcerrors.ProblemMediaType {
		t.Errorf("HEAD 404: %d %q %q", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
}

func TestWithoutTheFormatNothingChanges(t *testing.T) {
	resp, body := get(t, appRouter(nil), "GET", "/nowhere")
	if resp.StatusCode != 404 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") ||
		!strings.Contains(body, "404 page not found") {
		t.Fatalf("chi's own 404 changed: %d %q %q", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	// A rejection returned with no format registered is a plain 500, as any
	// unhandled error would be.
	r := chi.NewRouter()
	r.Method("GET", "/limited", svcerrors.Handler(func(http.ResponseWriter, *http.Request) error {
		return &svcerrors.RateLimitExceeded{}
	}))
	resp, body = get(t, r, "GET", "/limited")
	if resp.StatusCode != 500 || strings.Contains(body, "rate") {
		t.Fatalf("got %d %q", resp.StatusCode, body)
	}
}

type quotaError struct{ plan string }

func (e *quotaError) Error() string { return "quota exhausted on plan " + e.plan }

func TestAppHandlerWinsBeforeOrAfterInstall(t *testing.T) {
	for _, when := range []string{"before", "after"} {
		t.Run(when, func(t *testing.T) {
			res := svcerrors.New()
			own := func(w http.ResponseWriter, _ *http.Request, err *svcerrors.RateLimitExceeded) {
				w.Header().Set("Content-Type", "application/vnd.own+json")
				w.WriteHeader(http.StatusTooManyRequests)
				_, _ = w.Write([]byte(`{"own":true}`))
			}
			if when == "before" {
				svcerrors.On(res, own)
			}
			r := chi.NewRouter()
			r.Use(res.Middleware)
			r.Method("GET", "/x", svcerrors.Handler(func(http.ResponseWriter, *http.Request) error {
				return &svcerrors.RateLimitExceeded{}
			}))
			r.Method("GET", "/other", svcerrors.Handler(func(http.ResponseWriter, *http.Request) error {
				return &svcerrors.BulkheadFull{}
			}))
			srv := httptest.NewServer(r)
			defer srv.Close()
			if when == "after" {
				svcerrors.On(res, own)
			}
			resp, err := http.Get(srv.URL + "/x")
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if string(b) != `{"own":true}` || resp.Header.Get("Content-Type") != "application/vnd.own+json" {
				t.Fatalf("app handler did not win: %s", b)
			}
			// Other kinds still render in the format.
			resp, err = http.Get(srv.URL + "/other")
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != 503 || resp.Header.Get("Content-Type") != svcerrors.ProblemMediaType {
				t.Fatalf("other kind: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
			}
		})
	}
}

func TestAppHandlerForAnOwnErrorType(t *testing.T) {
	res := svcerrors.New()
	svcerrors.On(res, func(w http.ResponseWriter, r *http.Request, err *quotaError) {
		svcerrors.Respond(w, r, http.StatusPaymentRequired, "Your plan's quota is used up.", map[string]any{"upgrade": "/plans"})
	})
	r := chi.NewRouter()
	r.Use(res.Middleware)
	r.Method("GET", "/q", svcerrors.Handler(func(http.ResponseWriter, *http.Request) error {
		return &quotaError{plan: "gold"}
	}))
	resp, body := get(t, r, "GET", "/q")
	if resp.StatusCode != 402 || strings.Contains(body, "gold") {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	var p svcerrors.ProblemDetail
	if err := json.Unmarshal([]byte(body), &p); err != nil {
		t.Fatal(err)
	}
	if p.Detail != "Your plan's quota is used up." || p.Extensions["upgrade"] != "/plans" || p.Type != "about:blank" {
		t.Fatalf("%+v", p)
	}
}

func TestRespondUsesTheRegisteredFormat(t *testing.T) {
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		svcerrors.Respond(w, r, http.StatusConflict, "Order already shipped.", map[string]any{"order": 42})
	})
	// None registered: RFC 9457.
	rec := httptest.NewRecorder()
	handler.ServeHTTP(rec, httptest.NewRequest("POST", "/orders/42/cancel", nil))
	checkHeaders(t, rec.Header(), svcerrors.ProblemMediaType, "")
	want := `{"type":"about:blank","title":"Conflict","status":409,"detail":"Order already shipped.","instance":"/orders/42/cancel","order":42}`
	if rec.Code != 409 || rec.Body.String() != want {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
	// TMF registered: TMF630, no extension members.
	rec = httptest.NewRecorder()
	svcerrors.NewTMF("SHOP", "").Middleware(handler).ServeHTTP(rec, httptest.NewRequest("POST", "/orders/42/cancel", nil))
	checkHeaders(t, rec.Header(), "application/json", "")
	want = `{"code":"SHOP-CONFLICT","reason":"Conflict","message":"Order already shipped.","@type":"Error"}`
	if rec.Body.String() != want {
		t.Fatalf("%s", rec.Body)
	}
}

func TestProblemDetailRoundTrip(t *testing.T) {
	ra := 2.5
	in := svcerrors.ProblemDetail{Type: "about:blank", Title: "T", Status: 429, RetryAfter: &ra,
		Extensions: map[string]any{"reason": "expired", "type": "ignored"}}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != `{"type":"about:blank","title":"T","status":429,"retry_after":2.5,"reason":"expired"}` {
		t.Fatalf("%s", b)
	}
	var out svcerrors.ProblemDetail
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if out.Extensions["reason"] != "expired" || *out.RetryAfter != 2.5 || len(out.Extensions) != 1 {
		t.Fatalf("%+v", out)
	}
}

func TestDescriptionHeadersAndExtensionsAreWritten(t *testing.T) {
	d := svcerrors.Description{
		Kind:       svcerrors.Kind{Status: 401, Anchor: "token-rejected", Title: "Token rejected", Detail: "d"},
		Extensions: []svcerrors.Member{{Name: "reason", Value: "expired"}, {Name: "status", Value: 999}},
		Header:     http.Header{"Www-Authenticate": {`Bearer error="invalid_token"`}},
	}
	rec := httptest.NewRecorder()
	rec.Header().Set("Cache-Control", "public, max-age=60") // a handler's header is overwritten
	svcerrors.New().Render(described{d}, "/me").Write(rec)
	if rec.Header().Get("WWW-Authenticate") != `Bearer error="invalid_token"` || rec.Header().Get("Cache-Control") != "no-store" {
		t.Fatalf("headers %v", rec.Header())
	}
	want := `{"type":"https://github.com/svckit/svc/blob/main/docs/errors.md#token-rejected","title":"Token rejected","status":401,"detail":"d","instance":"/me","reason":"expired"}`
	if rec.Body.String() != want {
		t.Fatalf("%s", rec.Body)
	}
}

// described is a rejection that answers with a description given as is.
type described struct{ d svcerrors.Description }

func (e described) Error() string                   { return "described" }
func (e described) Describe() svcerrors.Description { return e.d }
