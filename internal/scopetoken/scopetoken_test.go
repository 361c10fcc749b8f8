package scopetoken

import "testing"

func TestValid(t *testing.T) {
	for s, want := range map[string]bool{
		"read": true, "invoices:read": true, "https://api.example/read": true, "a!#[]^~": true,
		"": false, "two words": false, `quo"te`: false, `back\slash`: false, "tab\t": false,
		"nl\n": false, "del\x7f": false, "caf\u00e9": false, "nbsp\u00a0": false,
	} {
		if got := Valid(s); got != want {
			t.Errorf("Valid(%q) = %v, want %v", s, got, want)
		}
	}
}
