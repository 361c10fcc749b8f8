package secret

import (
	"fmt"
)

// mask is what a set secret prints as.
const mask = "***"

// String is a secret string. Every printing path shows "***" (or "" when
// unset); Value returns the real value.
type String string

// Value returns the secret in clear. Call it only where the value is used,
// never to log or wrap it into an error.
func (s String) Value() string { return string(s) }

// String returns the mask, or "" when the secret is unset.
func (s String) String() string { return masked(s != "", mask) }

// goString serves %#v: it shows the type and the mask, never the value.
func (s String) goString() string { return fmt.Sprintf("secret.String(%q)", s.String()) }

// Format applies every fmt verb and flag to the mask instead of the value.
func (s String) Format(f fmt.State, verb rune) { format(f, verb, s.String(), s.goString()) }

// MarshalText writes the mask, also for encoding/json.
func (s String) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText sets the real value: caarlos0/env, flag-like readers and
// encoding/json (from a JSON string; other JSON types are refused without
// repeating the input) use it.
func (s *String) UnmarshalText(b []byte) error {
	*s = String(b)
	return nil
}

func masked(set bool, shown string) string {
	if !set {
		return ""
	}
	return shown
}

// format prints shown under the caller's verb and flags, so widths and
// quoting behave as for a plain string while the value stays hidden.
func format(f fmt.State, verb rune, shown, goString string) {
	if verb == 'v' && f.Flag('#') {
		fmt.Fprint(f, goString)
		return
	}
	fmt.Fprintf(f, fmt.FormatString(f, verb), shown)
}
