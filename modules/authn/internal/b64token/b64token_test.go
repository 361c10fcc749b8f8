package b64token

import "testing"

func TestValid(t *testing.T) {
	for s, want := range map[string]bool{
		"":             false,
		"=":            false,
		"abc":          true,
		"aB9-._~+/":    true,
		"abc==":        true,
		"ab=c":         false,
		"a b":          false,
		"a\x00":        false,
		"eyJ.eyJ.sig":  true,
		"ä":            false,
		"abc=\n":       false,
		"tok\"en":      false,
		"a,b":          false,
		"0123456789==": true,
	} {
		if got := Valid(s); got != want {
			t.Errorf("Valid(%q) = %v, want %v", s, got, want)
		}
	}
}
