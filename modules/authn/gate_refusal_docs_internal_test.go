package authn

import (
	"os"
	"strings"
	"testing"
)

// Every refusal kind the gate answers has its section in docs/errors.md,
// where its `type` points, and its row in the table there.
func TestEveryRefusalKindHasItsDocsAnchor(t *testing.T) {
	doc, err := os.ReadFile("../../docs/errors.md")
	if err != nil {
		t.Fatal(err)
	}
	for kind := range refusalTexts {
		anchor := string(kind)
		if !strings.Contains(string(doc), "\n## "+anchor+"\n") || !strings.Contains(string(doc), "["+anchor+"](#"+anchor+")") {
			t.Errorf("docs/errors.md has no section or row %q", anchor)
		}
	}
}
