package secret

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
)

// ErrInvalidURL is returned by ParseURL. It never carries the input, since
// the input may hold credentials.
var ErrInvalidURL = errors.New("secret: not an absolute URL with a scheme and a host")

// URL is an address that may embed credentials (https://user:pass@host/).
// It prints with the user information replaced by [Mask]; Value returns it
// in clear.
type URL string

// ParseURL checks that raw is an absolute URL with a scheme and a host. The
// error it returns is [ErrInvalidURL], never one that repeats raw (url.Parse
// errors quote their input).
func ParseURL(raw string) (URL, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return "", ErrInvalidURL
	}
	return URL(raw), nil
}

// Value returns the URL in clear, credentials included.
func (u URL) Value() string { return string(u) }

// IsSet reports whether the URL is non-empty.
func (u URL) IsSet() bool { return u != "" }

// String returns the URL with any user information replaced by [Mask]. A
// value that does not parse prints as [Mask] whole, since where its
// credentials sit cannot be told.
func (u URL) String() string {
	if u == "" {
		return ""
	}
	p, err := url.Parse(string(u))
	if err != nil {
		return Mask
	}
	if p.User == nil {
		// Opaque forms such as "user:pass@host" parse with the
		// credentials in Opaque; hide what might hold them.
		if p.Opaque != "" && strings.Contains(p.Opaque, "@") {
			return Mask
		}
		return string(u)
	}
	if p.Host == "" {
		return Mask
	}
	p.User = nil
	s := strings.Replace(p.String(), "//", "//"+Mask+"@", 1)
	if _, err := url.Parse(s); err != nil {
		// Re-encoding produced something odd; show nothing rather than
		// reason about where the credentials went.
		return Mask
	}
	return s
}

// GoString serves %#v with the masked form.
func (u URL) GoString() string { return fmt.Sprintf("secret.URL(%q)", u.String()) }

// Format applies every fmt verb and flag to the masked form.
func (u URL) Format(f fmt.State, verb rune) { format(f, verb, u.String(), u.GoString()) }

// MarshalJSON writes the masked form as a JSON string.
func (u URL) MarshalJSON() ([]byte, error) { return json.Marshal(u.String()) }

// MarshalText writes the masked form.
func (u URL) MarshalText() ([]byte, error) { return []byte(u.String()), nil }

// UnmarshalText sets the URL in clear; it does not validate (see ParseURL).
func (u *URL) UnmarshalText(b []byte) error {
	*u = URL(b)
	return nil
}

// UnmarshalJSON sets the URL in clear from a JSON string.
func (u *URL) UnmarshalJSON(b []byte) error {
	var v string
	if err := json.Unmarshal(b, &v); err != nil {
		return fmt.Errorf("secret: a secret URL must be a JSON string")
	}
	*u = URL(v)
	return nil
}

// LogValue makes log/slog print the masked form.
func (u URL) LogValue() slog.Value { return slog.StringValue(u.String()) }
