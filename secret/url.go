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

// URL is an address that may embed credentials (https://user:pass@host/,
// https://host/?key=secret). It prints with the user information, query
// and fragment replaced by [Mask]; Value returns it in clear.
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

// String returns the URL with its user information, its query and its
// fragment each replaced by [Mask] (https://***@host/path?***#***): any of
// them may carry a credential (a password, an API key in a query
// parameter, a token in a fragment), while the scheme, host and path tell
// an operator which server a service talks to. A value that does not parse
// prints as [Mask] whole, since where its credentials sit cannot be told.
// It is the one redaction of a URL for errors and logs in this module:
// call secret.URL(raw).String() on any URL a message quotes.
func (u URL) String() string {
	if u == "" {
		return ""
	}
	p, err := url.Parse(string(u))
	if err != nil {
		return Mask
	}
	// Opaque forms such as "user:pass@host" parse with the credentials
	// in Opaque; hide what might hold them.
	if p.Opaque != "" && strings.Contains(p.Opaque, "@") {
		return Mask
	}
	user := p.User != nil
	query := p.RawQuery != "" || p.ForceQuery
	fragment := strings.Contains(string(u), "#")
	if !user && !query && !fragment {
		return string(u)
	}
	if user && p.Host == "" {
		return Mask
	}
	p.User, p.RawQuery, p.ForceQuery, p.Fragment, p.RawFragment = nil, "", false, "", ""
	s := p.String()
	if user {
		s = strings.Replace(s, "//", "//"+Mask+"@", 1)
	}
	if query {
		s += "?" + Mask
	}
	if fragment {
		s += "#" + Mask
	}
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
