package authn

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/svckit/svc/modules/authn/bearer"
)

type noTokens struct{}

func (noTokens) Verify(context.Context, string) (bearer.Principal, error) {
	return bearer.Principal{}, &bearer.TokenError{Reason: bearer.ReasonSignature}
}

// FuzzServeMuxGate: whatever the method and path, a request without a
// token on a ServeMux reaches only the anonymous handler, and what it does
// not reach is refused with the gate's 401 (never the mux's 404 or 405).
func FuzzServeMuxGate(f *testing.F) {
	for _, s := range []struct{ method, path string }{
		{"GET", "/open"}, {"GET", "/open/"}, {"POST", "/open"}, {"GET", "/closed"}, {"GET", "/open/../closed"},
		{"GET", "//open"}, {"GET", "/%6fpen"}, {"CONNECT", "/open"}, {"HEAD", "/open"}, {"GET", "/sub/x"}, {"GET", "/sub"},
	} {
		f.Add(s.method, s.path)
	}
	mux := NewServeMux()
	served := ""
	mux.Handle("GET /open", Anonymous(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { served = "open" })))
	mux.HandleFunc("GET /closed", func(http.ResponseWriter, *http.Request) { served = "closed" })
	mux.HandleFunc("/sub/", func(http.ResponseWriter, *http.Request) { served = "sub" })
	g, err := New(noTokens{})
	if err != nil {
		f.Fatal(err)
	}
	h, err := g.Handler(mux)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, method, path string) {
		if !validMethod(method) || path == "" || path[0] != '/' || strings.ContainsAny(path, " \t\r\n#?") {
			return
		}
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.Method, r.URL.Path, r.RequestURI = method, path, path
		served = ""
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		switch {
		case served == "closed" || served == "sub":
			t.Fatalf("%s %q reached %s without a token", method, path, served)
		case served == "open":
		case w.Code == http.StatusUnauthorized:
		default:
			t.Fatalf("%s %q: %d", method, path, w.Code)
		}
	})
}

func validMethod(m string) bool {
	if m == "" || len(m) > 16 {
		return false
	}
	for _, c := range m {
		if c < 'A' || c > 'Z' {
			return false
		}
	}
	return true
}
