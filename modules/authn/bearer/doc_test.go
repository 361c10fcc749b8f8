package bearer

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The package doc says how many files the verifier is: a reader's first
// measure of what an audit takes. It stays true.
func TestPackageDocCountsItsFiles(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`// (\d+) files, about ([\d,]+) lines`).FindSubmatch(doc)
	if m == nil {
		t.Fatal(`doc.go no longer says "N files, about L lines"`)
	}
	files, _ := filepath.Glob("*.go")
	n, lines := 0, 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		n++
		lines += strings.Count(string(b), "\n")
	}
	saidFiles, _ := strconv.Atoi(string(m[1]))
	saidLines, _ := strconv.Atoi(strings.ReplaceAll(string(m[2]), ",", ""))
	if saidFiles != n || lines < saidLines*9/10 || lines > saidLines*11/10 {
		t.Fatalf("doc.go says %d files, about %d lines; the package has %d files, %d lines", saidFiles, saidLines, n, lines)
	}
}

// The verifier is usable without the gate: nothing the gate is made of is
// among its dependencies.
func TestImportsNothingOfTheGate(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		switch {
		case dep == "github.com/svckit/svc/modules/authn",
			strings.HasPrefix(dep, "github.com/svckit/svc/modules/authn/") &&
				!strings.HasPrefix(dep, "github.com/svckit/svc/modules/authn/bearer") &&
				!strings.HasPrefix(dep, "github.com/svckit/svc/modules/authn/internal/"),
			strings.HasPrefix(dep, "github.com/svckit/svc/fxsvc"),
			dep == "go.uber.org/fx":
			t.Errorf("bearer depends on %s", dep)
		}
	}
}
