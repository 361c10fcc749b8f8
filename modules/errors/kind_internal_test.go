package svcerrors

import (
	"os"
	"strings"
	"testing"

	"github.com/svckit/svc/internal/upstreamkind"
)

// Every kind internal/upstreamkind may name has its section in docs/errors.md, the
// page its type points at.
func TestNamedKindsAreDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/errors.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, anchor := range []string{upstreamkind.Unavailable, upstreamkind.Refused, upstreamkind.BulkheadFull, upstreamkind.CircuitBreakerOpen} {
		if _, ok := kindByAnchor(anchor); !ok {
			t.Errorf("kindByAnchor(%q) unknown", anchor)
		}
		if !strings.Contains(string(doc), "\n## "+anchor+"\n") {
			t.Errorf("docs/errors.md has no section %q", anchor)
		}
	}
}
