package requestid_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/svckit/svc/modules/requestid"
)

func TestMiddlewareKeepsWellFormedIDsAndReplacesOthers(t *testing.T) {
	cases := []struct {
		name, in string
		kept     bool
	}{
		{"uuid", "3f2b8c1e-9a4d-4e6f-8b7a-1c2d3e4f5a6b", true},
		{"ulid", "01HZX3J8K9M2N4P6Q8R0S2T4V6", true},
		{"base64", "aGVsbG8+d29ybGQ/Zm9v=", true},
		{"at the limit", strings.Repeat("a", requestid.MaxLength), true},
		{"absent", "", false},
		{"too long", strings.Repeat("a", requestid.MaxLength+1), false},
		{"space", "abc def", false},
		{"newline", "abc\ndef", false},
		{"quote", `abc"def`, false},
		{"non-ASCII", "abcé", false},
		{"bidi control", "abc\u202edef", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var seen string
			h := requestid.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
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
			if !c.kept && (len(seen) != 32 || !requestid.Valid(seen)) {
				t.Fatalf("generated ID %q is not 32 valid characters", seen)
			}
		})
	}
}

func TestNewIDsDiffer(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		id := requestid.New()
		if seen[id] {
			t.Fatalf("duplicate ID %s", id)
		}
		seen[id] = true
	}
}

func TestFromWithoutMiddleware(t *testing.T) {
	if id := requestid.From(httptest.NewRequest("GET", "/", nil).Context()); id != "" {
		t.Fatalf("From = %q without the middleware", id)
	}
}

func FuzzValid(f *testing.F) {
	f.Add("abc-123")
	f.Add("a\x00b")
	f.Fuzz(func(t *testing.T, id string) {
		if !requestid.Valid(id) {
			return
		}
		if len(id) > requestid.MaxLength || strings.ContainsAny(id, " \t\r\n\"\\<>") {
			t.Fatalf("Valid(%q) accepted a dangerous ID", id)
		}
		for _, r := range id {
			if r > 0x7e || r < 0x21 {
				t.Fatalf("Valid(%q) accepted %U", id, r)
			}
		}
	})
}

// TestNewIsValidHexAcrossGoroutines holds New's format (32 lowercase hex
// digits, accepted by Valid) and its uniqueness when many goroutines draw
// at once, as the requests of a busy server do.
func TestNewIsValidHexAcrossGoroutines(t *testing.T) {
	const workers, each = 8, 500
	ids := make(chan string, workers*each)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				ids <- requestid.New()
			}
		}()
	}
	wg.Wait()
	close(ids)
	seen := map[string]bool{}
	for id := range ids {
		if len(id) != 32 || strings.Trim(id, "0123456789abcdef") != "" || !requestid.Valid(id) {
			t.Fatalf("New() = %q, want 32 lowercase hex digits", id)
		}
		if seen[id] {
			t.Fatalf("duplicate ID %s", id)
		}
		seen[id] = true
	}
}
