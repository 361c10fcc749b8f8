package authnhuma_test

import (
	"net/http"
	"strings"
	"testing"

	svcerrors "github.com/svckit/svc/modules/errors"
)

// The gate on Huma (the spec's framework A), on chi and on ServeMux, with
// both error formats: one row per rule of "Gate placement" for A and of
// "Framework errors under the format".
type row struct {
	name         string
	method, path string
	header       http.Header
	body         string
	status       int
	anchor       string // "" for about:blank; "-" for a success
	want         string // a success's message
	challenge    string
	retryAfter   string
	mustNotQuote string
}

func table() []row {
	return []row{
		{name: "anonymous operation, no token", method: "GET", path: "/api/hello", status: 200, anchor: "-", want: "hello stranger"},
		{name: "anonymous operation, valid token", method: "GET", path: "/api/hello", header: bearerHeader("alice-token"), status: 200, anchor: "-", want: "hello alice"},
		{name: "anonymous operation, bad token", method: "GET", path: "/api/hello", header: bearerHeader("forged-token"), status: 401, anchor: "token-rejected", challenge: `Bearer error="invalid_token"`},
		{name: "anonymous on GET keeps POST authenticated", method: "POST", path: "/api/hello", status: 401, anchor: "authentication-required", challenge: "Bearer"},
		{name: "method no operation serves, with a token", method: "POST", path: "/api/hello", header: bearerHeader("alice-token"), status: 405, anchor: ""},
		{name: "protected operation, no token", method: "GET", path: "/api/me", status: 401, anchor: "authentication-required", challenge: "Bearer"},
		{name: "caller as a typed input", method: "GET", path: "/api/me", header: bearerHeader("alice-token"), status: 200, anchor: "-", want: "hello alice"},
		{name: "token from the context", method: "GET", path: "/api/token", header: bearerHeader("alice-token"), status: 200, anchor: "-", want: "token ***"},
		{name: "unknown URL under the API", method: "GET", path: "/api/nowhere", status: 401, anchor: "authentication-required", challenge: "Bearer"},
		{name: "unknown URL, with a token: the router's 404", method: "GET", path: "/api/nowhere", header: bearerHeader("alice-token"), status: 404, anchor: ""},
		{name: "trailing-slash variant", method: "GET", path: "/api/me/", status: 401, anchor: "authentication-required", challenge: "Bearer"},
		{name: "invalid body, no token: 401 not 422", method: "POST", path: "/api/items", body: `{"name":1}`, status: 401, anchor: "authentication-required", challenge: `Bearer scope="items:write"`},
		{name: "invalid body, scope missing: 403 not 422", method: "POST", path: "/api/items", header: bearerHeader("alice-token"), body: `{"name":1}`, status: 403, anchor: "insufficient-scope", challenge: `Bearer error="insufficient_scope", scope="items:write"`},
		{name: "scope held, valid body", method: "POST", path: "/api/items", header: bearerHeader("writer-token"), body: `{"name":"pen"}`, status: 200, anchor: "-", want: "created pen"},
		{name: "scope held, invalid body: validation-failed", method: "POST", path: "/api/items", header: bearerHeader("writer-token"), body: `{"name":"p"}`, status: 422, anchor: "validation-failed"},
		{name: "malformed JSON: validation-failed, input not echoed", method: "POST", path: "/api/items", header: bearerHeader("writer-token"), body: `{"name":"secret-input`, status: 400, anchor: "validation-failed", mustNotQuote: "secret-input"},
		{name: "bad path parameter: validation-failed", method: "GET", path: "/api/items/abc", header: bearerHeader("alice-token"), status: 422, anchor: "validation-failed"},
		{name: "handler error: a 500 that says nothing of it", method: "GET", path: "/api/boom", header: bearerHeader("alice-token"), status: 500, anchor: "", mustNotQuote: "hunter2"},
		{name: "handler returns a rejection", method: "GET", path: "/api/limited", header: bearerHeader("alice-token"), status: 429, anchor: "rate-limit-exceeded", retryAfter: "2"},
		{name: "handler returns huma.Error404NotFound", method: "GET", path: "/api/missing", header: bearerHeader("alice-token"), status: 404, anchor: "", mustNotQuote: "item 42"},
		{name: "scopes of a group and its operation: group's held only", method: "GET", path: "/api/admin-area/stats", header: bearerHeader("admin-token"), status: 403, anchor: "insufficient-scope", challenge: `Bearer error="insufficient_scope", scope="admin stats"`},
		{name: "scopes of a group and its operation: both held", method: "GET", path: "/api/admin-area/stats", header: bearerHeader("stats-token"), status: 200, anchor: "-", want: "hello sam"},
		{name: "anonymous group", method: "GET", path: "/api/public/info", status: 200, anchor: "-", want: "hello stranger"},
		{name: "schema route needs a token", method: "GET", path: "/api/openapi.json", status: 401, anchor: "authentication-required", challenge: "Bearer"},
		{name: "docs route needs a token", method: "GET", path: "/api/docs", status: 401, anchor: "authentication-required", challenge: "Bearer"},
		{name: "the router's own routes beside the API", method: "GET", path: "/healthz", status: 401, anchor: "authentication-required", challenge: "Bearer"},
	}
}

func TestGateOnHumaBothRoutersBothFormats(t *testing.T) {
	each(t, appOptions{}, func(t *testing.T, a *app, fname string, res *svcerrors.Responses) {
		srv := a.serve(t, res)
		for _, tc := range table() {
			t.Run(tc.name, func(t *testing.T) {
				got := do(t, srv, tc.method, tc.path, tc.header, tc.body)
				if got.status != tc.status {
					t.Fatalf("status %d, want %d: %s", got.status, tc.status, got.body)
				}
				if tc.anchor == "-" {
					if got.json["message"] != tc.want {
						t.Fatalf("body %s, want message %q", got.body, tc.want)
					}
					return
				}
				checkError(t, got, fname, tc.status, tc.anchor)
				if c := got.header.Get("WWW-Authenticate"); c != tc.challenge {
					t.Errorf("WWW-Authenticate = %q, want %q", c, tc.challenge)
				}
				if ra := got.header.Get("Retry-After"); ra != tc.retryAfter {
					t.Errorf("Retry-After = %q, want %q", ra, tc.retryAfter)
				}
				if tc.mustNotQuote != "" && strings.Contains(got.body, tc.mustNotQuote) {
					t.Errorf("body quotes %q: %s", tc.mustNotQuote, got.body)
				}
				for _, leak := range []string{"alice-token", "writer-token", "$schema", `"location"`, `"value"`} {
					if strings.Contains(got.body, leak) {
						t.Errorf("body carries %q: %s", leak, got.body)
					}
				}
			})
		}
	})
}

// checkError checks an error answer's shape in the format, and the safety
// headers.
func checkError(t *testing.T, got served, fname string, status int, anchor string) {
	t.Helper()
	if got.header.Get("Cache-Control") != "no-store" || got.header.Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("safety headers: %v", got.header)
	}
	if fname == "rfc9457" {
		want := "about:blank"
		if anchor != "" {
			want = docs + anchor
		}
		if got.header.Get("Content-Type") != svcerrors.ProblemMediaType || got.json["type"] != want || got.json["status"] != float64(status) {
			t.Errorf("body %s (%s), want type %s", got.body, got.header.Get("Content-Type"), want)
		}
		return
	}
	code, _ := got.json["code"].(string)
	if got.header.Get("Content-Type") != "application/json" || got.json["@type"] != "Error" || !strings.HasPrefix(code, "API-") {
		t.Errorf("body %s (%s)", got.body, got.header.Get("Content-Type"))
	}
	if anchor != "" && code != "API-"+strings.ToUpper(anchor) {
		t.Errorf("code %q, want anchor %s", code, anchor)
	}
}

func TestValidationEntries(t *testing.T) {
	each(t, appOptions{}, func(t *testing.T, a *app, fname string, res *svcerrors.Responses) {
		srv := a.serve(t, res)
		got := do(t, srv, "POST", "/api/items", bearerHeader("writer-token"), `{"name":"p","extra":true}`)
		if got.status != 422 {
			t.Fatalf("%d %s", got.status, got.body)
		}
		if fname == "tmf630" {
			msg, _ := got.json["message"].(string)
			if !strings.Contains(msg, "body.name: expected length >= 2 (too_short)") || !strings.Contains(msg, "(extra_forbidden)") {
				t.Fatalf("message %q", msg)
			}
			return
		}
		entries, _ := got.json["errors"].([]any)
		if len(entries) != 2 {
			t.Fatalf("errors %s", got.body)
		}
		seen := map[string]bool{}
		for _, e := range entries {
			m := e.(map[string]any)
			loc, _ := m["loc"].([]any)
			var parts []string
			for _, l := range loc {
				parts = append(parts, l.(string))
			}
			seen[strings.Join(parts, ".")+" "+m["type"].(string)] = true
			if len(m) != 3 {
				t.Errorf("entry %v has members besides loc, msg, type", m)
			}
		}
		if !seen["body.name too_short"] || !seen["body.extra extra_forbidden"] {
			t.Fatalf("entries %v", seen)
		}
	})
}

// Without a registered format Huma answers its own errors, minus the leak
// of a handler error's message; refusals are still the gate's.
func TestWithoutRegisteredFormatHumaKeepsItsErrors(t *testing.T) {
	for rname, build := range routers {
		t.Run(rname, func(t *testing.T) {
			srv := build(t, appOptions{}).serve(t, nil)
			got := do(t, srv, "GET", "/api/boom", bearerHeader("alice-token"), "")
			if got.status != 500 || strings.Contains(got.body, "hunter2") || got.json["title"] != "Internal Server Error" {
				t.Fatalf("%d %s", got.status, got.body)
			}
			got = do(t, srv, "POST", "/api/items", bearerHeader("writer-token"), `{"name":"p"}`)
			if got.status != 422 || got.json["detail"] != "validation failed" {
				t.Fatalf("Huma's own 422: %d %s", got.status, got.body)
			}
			got = do(t, srv, "GET", "/api/admin", bearerHeader("alice-token"), "")
			if got.status != 403 || got.json["type"] != docs+"insufficient-scope" {
				t.Fatalf("refusal: %d %s", got.status, got.body)
			}
		})
	}
}

// An app's own answer to an error type (svcerrors.On) wins inside Huma too.
func TestAppsOwnHandlerWins(t *testing.T) {
	for rname, build := range routers {
		t.Run(rname, func(t *testing.T) {
			res := svcerrors.New()
			svcerrors.On(res, func(w http.ResponseWriter, _ *http.Request, _ *svcerrors.RateLimitExceeded) {
				w.Header().Set("Content-Type", "application/json")
				w.Header().Set("X-Slow-Down", "yes")
				w.WriteHeader(http.StatusServiceUnavailable)
				_, _ = w.Write([]byte(`{"slow":"down"}`))
			})
			srv := build(t, appOptions{res: res}).serve(t, res)
			got := do(t, srv, "GET", "/api/limited", bearerHeader("alice-token"), "")
			if got.status != 503 || got.json["slow"] != "down" || got.header.Get("X-Slow-Down") != "yes" ||
				got.header.Get("Content-Type") != "application/json" {
				t.Fatalf("%d %v %s", got.status, got.header, got.body)
			}
		})
	}
}
