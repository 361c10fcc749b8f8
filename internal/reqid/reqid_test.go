package reqid_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/svckit/svc/internal/reqid"
)

func TestNewIDsDiffer(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		id := reqid.New()
		if seen[id] {
			t.Fatalf("duplicate ID %s", id)
		}
		seen[id] = true
	}
}

func FuzzValid(f *testing.F) {
	f.Add("abc-123")
	f.Add("a\x00b")
	f.Fuzz(func(t *testing.T, id string) {
		if !reqid.Valid(id) {
			return
		}
		if len(id) > reqid.MaxLength || strings.ContainsAny(id, " \t\r\n\"\\<>") {
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
				ids <- reqid.New()
			}
		}()
	}
	wg.Wait()
	close(ids)
	seen := map[string]bool{}
	for id := range ids {
		if len(id) != 32 || strings.Trim(id, "0123456789abcdef") != "" || !reqid.Valid(id) {
			t.Fatalf("New() = %q, want 32 lowercase hex digits", id)
		}
		if seen[id] {
			t.Fatalf("duplicate ID %s", id)
		}
		seen[id] = true
	}
}
