package secret

import (
	"fmt"
	"net/url"
	"strings"
)

// URL is an address that may embed credentials (https://user:pass@host/,
// https://host/?key=secret). It prints with the user information, query
// and fragment masked as "***"; Value returns it in clear.
type URL string

// Value returns the URL in clear, credentials included.
func (u URL) Value() string { return string(u) }

// String returns the URL with its user information, its query and its
// fragment each replaced by "***" (https://***@host/path?***#***): any of
// them may carry a credential (a password, an API key in a query
// parameter, a token in a fragment), while the scheme, host and path tell
// an operator which server a service talks to. A value that does not parse
// prints as "***" whole, since where its credentials sit cannot be told.
// It is the one redaction of a URL for errors and logs in this module:
// call secret.URL(raw).String() on any URL a message quotes.
func (u URL) String() string {
	if u == "" {
		return ""
	}
	p, err := url.Parse(string(u))
	if err != nil {
		return mask
	}
	// Opaque forms such as "user:pass@host" parse with the credentials
	// in Opaque; hide what might hold them.
	if p.Opaque != "" && strings.Contains(p.Opaque, "@") {
		return mask
	}
	user := p.User != nil
	query := p.RawQuery != "" || p.ForceQuery
	fragment := strings.Contains(string(u), "#")
	if !user && !query && !fragment {
		return string(u)
	}
	if user && p.Host == "" {
		return mask
	}
	p.User, p.RawQuery, p.ForceQuery, p.Fragment, p.RawFragment = nil, "", false, "", ""
	s := p.String()
	if user {
		s = strings.Replace(s, "//", "//"+mask+"@", 1)
	}
	if query {
		s += "?" + mask
	}
	if fragment {
		s += "#" + mask
	}
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
