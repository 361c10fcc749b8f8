package authnhuma

import (
	"errors"
	"strings"
	"testing"

	"github.com/danielgtaylor/huma/v2"
)

// FuzzFieldErrors: whatever Huma's detail holds, an entry never carries the
// echoed value or a parser's quoted input, and its loc has no empty part.
func FuzzFieldErrors(f *testing.F) {
	for _, s := range []struct{ loc, msg, value string }{
		{"body.items[3].tags", "expected string", "x"},
		{"body", "invalid character 'S' looking for beginning of value", "SECRET"},
		{"query.u", "expected string to be RFC 3986 uri: parse \"SECRET x\": invalid", "SECRET x"},
		{"path.id", "invalid integer", "abc"},
		{"", "", ""},
		{"..[][]", "expected length >= 2", "a"},
	} {
		f.Add(s.loc, s.msg, s.value, 422)
		f.Add(s.loc, s.msg, s.value, 400)
	}
	f.Fuzz(func(t *testing.T, loc, msg, value string, status int) {
		const marker = "\x00SECRET\x00"
		d := &huma.ErrorDetail{Location: loc, Message: msg + ": " + marker, Value: marker + value}
		entries := fieldErrors(status, []error{d, errors.New("resolver says " + marker)})
		if len(entries) != 2 {
			t.Fatalf("%d entries", len(entries))
		}
		for _, e := range entries {
			if strings.Contains(e.Msg, marker) || len(e.Msg) > 200 || e.Type == "" {
				t.Fatalf("entry %+v", e)
			}
			for _, l := range e.Loc {
				if l == "" || strings.ContainsAny(l, ".[]") {
					t.Fatalf("loc %q", e.Loc)
				}
			}
		}
	})
}
