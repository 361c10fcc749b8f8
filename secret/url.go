package secret

import (
	"fmt"
	"net/url"
	"strings"
)

// URL is an address that may embed credentials (https://user:pass@host/).
// It prints with the user information replaced by "***"; Value returns it
// in clear.
type URL string

// Value returns the URL in clear, credentials included.
func (u URL) Value() string { return string(u) }

// IsSet reports whether the URL is non-empty.
func (u URL) IsSet() bool { return u != "" }

// String returns the URL with any user information replaced by "***". A
// value that does not parse prints as "***" whole, since where its
// credentials sit cannot be told.
func (u URL) String() string {
	if u == "" {
		return ""
	}
	p, err := url.Parse(string(u))
	if err != nil {
		return mask
	}
	if p.User == nil {
		// Opaque forms such as "user:pass@host" parse with the
		// credentials in Opaque; hide what might hold them.
		if p.Opaque != "" && strings.Contains(p.Opaque, "@") {
			return mask
		}
		return string(u)
	}
	if p.Host == "" {
		return mask
	}
	p.User = nil
	s := strings.Replace(p.String(), "//", "//"+mask+"@", 1)
	if _, err := url.Parse(s); err != nil {
		// Re-encoding produced something odd; show nothing rather than
		// reason about where the credentials went.
		return mask
	}
	return s
}

// goString serves %#v with the masked form.
func (u URL) goString() string { return fmt.Sprintf("secret.URL(%q)", u.String()) }

// Format applies every fmt verb and flag to the masked form.
func (u URL) Format(f fmt.State, verb rune) { format(f, verb, u.String(), u.goString()) }

// MarshalText writes the masked form, also for encoding/json.
func (u URL) MarshalText() ([]byte, error) { return []byte(u.String()), nil }

// UnmarshalText sets the URL in clear, also from a JSON string; it does
// not validate.
func (u *URL) UnmarshalText(b []byte) error {
	*u = URL(b)
	return nil
}
