package main

import (
	"os"
	"strings"
	"testing"
)

// TestThePageQuotesTheseFiles holds docs/quickstart.md to the code that
// compiles and passes here: each file is quoted whole in a go block.
func TestThePageQuotesTheseFiles(t *testing.T) {
	page, err := os.ReadFile("../quickstart.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"main.go", "router.go", "main_test.go"} {
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		block := "```go\n" + strings.TrimRight(string(src), "\n") + "\n```\n"
		if !strings.Contains(string(page), block) {
			t.Errorf("docs/quickstart.md does not quote %s as it is: paste the file into its go block", name)
		}
	}
}
