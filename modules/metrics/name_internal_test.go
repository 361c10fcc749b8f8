package metrics

import (
	"regexp"
	"strings"
	"testing"
)

// OpenTelemetry's instrument name syntax.
var instrumentName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_./-]{0,254}$`)

func TestDotted(t *testing.T) {
	cases := map[string]string{
		"github.com/acme/shop/db.(*Repo).Get-fm": "github.com.acme.shop.db.repo.get",
		"main.main.func1.2":                      "main.main.func1.2",
		"example.com/x.Map[...]":                 "example.com.x.map",
		"example.com/x.(*T[go.shape.int]).Do":    "example.com.x.t.do",
		"9lives/pkg.F":                           "fn.9lives.pkg.f",
		"a/b.f·1":                                "a.b.f_1",
		"":                                       "anonymous",
		"...":                                    "anonymous",
		strings.Repeat("seg/", 100) + "pkg.Function": "",
	}
	for in, want := range cases {
		got := dotted(in)
		if want != "" && got != want {
			t.Errorf("dotted(%q) = %q, want %q", in, got, want)
		}
		if !instrumentName.MatchString(got + ".duration") {
			t.Errorf("dotted(%q) = %q gives an invalid instrument name", in, got)
		}
	}
	if got := dotted(strings.Repeat("seg/", 100) + "pkg.Function"); !strings.HasSuffix(got, "pkg.function") {
		t.Errorf("an overlong name must keep its tail: %q", got)
	}
}

func FuzzDotted(f *testing.F) {
	f.Add("github.com/acme/shop/db.(*Repo).Get-fm")
	f.Add("x.F[...]")
	f.Fuzz(func(t *testing.T, raw string) {
		got := dotted(raw)
		if !instrumentName.MatchString(got + ".duration") {
			t.Fatalf("dotted(%q) = %q is not a valid instrument base name", raw, got)
		}
	})
}
