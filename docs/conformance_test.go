// Package docs holds the tests that keep the pages under docs/ true to the
// code: conformance.md may name only tests that exist.
package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var (
	codeSpan = regexp.MustCompile("`([^`]+)`")
	testName = regexp.MustCompile(`^(Test|Fuzz)\w+$`)
)

// TestConformanceNamesOnlyTestsThatExist reads the last column of every
// table row of conformance.md: a package directory, then the tests it holds.
func TestConformanceNamesOnlyTestsThatExist(t *testing.T) {
	page, err := os.ReadFile("conformance.md")
	if err != nil {
		t.Fatal(err)
	}
	named := 0
	for _, line := range strings.Split(string(page), "\n") {
		cells := strings.Split(line, "|")
		if !strings.HasPrefix(line, "|") || len(cells) < 4 {
			continue
		}
		dir := ""
		for _, m := range codeSpan.FindAllStringSubmatch(cells[len(cells)-2], -1) {
			switch tok := m[1]; {
			case testName.MatchString(tok):
				if dir == "" {
					t.Errorf("%s is named before its package: %q", tok, line)
					continue
				}
				named++
				if !declares(t, filepath.Join("..", dir), tok) {
					t.Errorf("conformance.md names %s in %s, which has no such test", tok, dir)
				}
			default:
				dir = tok
			}
		}
	}
	if named < 50 {
		t.Fatalf("read only %d test names: the table's layout changed", named)
	}
}

// declares reports whether a _test.go file in dir declares func name.
func declares(t *testing.T, dir, name string) bool {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if err != nil || len(files) == 0 {
		t.Errorf("no tests in %s (%v)", dir, err)
		return false
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(src), "\nfunc "+name+"(") {
			return true
		}
	}
	return false
}
