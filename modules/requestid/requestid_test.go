package requestid_test

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/svckit/svc/modules/requestid"
)

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

func TestFromWithoutAnID(t *testing.T) {
	if id := requestid.From(httptest.NewRequest("GET", "/", nil).Context()); id != "" {
		t.Fatalf("From = %q without an ID given", id)
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
