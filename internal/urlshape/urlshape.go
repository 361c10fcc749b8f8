// Package urlshape says what is wrong with a URL setting that must be an
// absolute http(s) URL with a host, in words an operator can act on: "has
// no scheme" rather than Go's "first path segment in URL cannot contain
// colon". The issuer, JWKS and token endpoint settings share it. Nothing
// it returns quotes the URL, which may hold credentials.
package urlshape

import (
	"errors"
	"net"
	"net/url"
	"strconv"
	"strings"
	"unicode"
)

// Parse parses raw as an absolute URL with a scheme, "//" and a host. It
// returns the URL, or the problem with it as a phrase to follow the
// setting's name ("has no scheme: write it as https://host[:port][/path]").
// It checks the shape only: which schemes, and whether user information,
// a query or a fragment are allowed, is the caller's rule.
func Parse(raw string) (*url.URL, string) {
	const example = ": write it as https://host[:port][/path]"
	switch {
	case raw == "":
		return nil, "is empty"
	case strings.TrimSpace(raw) != raw:
		return nil, "has spaces around it"
	case strings.ContainsFunc(raw, unicode.IsControl):
		return nil, "holds a control character"
	}
	scheme, rest, found := strings.Cut(raw, ":")
	if !found || scheme == "" {
		return nil, "has no scheme" + example
	}
	if !strings.HasPrefix(rest, "//") {
		if scheme == "http" || scheme == "https" {
			return nil, "has no // after " + scheme + ":" + example
		}
		// "localhost:8080", "idp.example.com:443": a host and port read
		// as a scheme.
		return nil, "has no scheme" + example
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, parseProblem(err)
	}
	host := u.Host
	switch {
	case u.Scheme == "":
		return nil, "has no scheme" + example
	case host == "":
		return nil, "has an empty host" + example
	case strings.HasSuffix(host, ":"):
		return nil, "ends its host with a colon and no port: remove the colon or add the port"
	case u.Hostname() == "":
		return nil, "has an empty host" + example
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return nil, "has a port outside 1 to 65535"
		}
	}
	return u, ""
}

// parseProblem words a url.Parse error without its text, which quotes the
// input.
func parseProblem(err error) string {
	var host url.InvalidHostError
	var escape url.EscapeError
	msg := err.Error()
	switch {
	case errors.As(err, &host):
		return "has a host holding a character a host name may not (a space, a quote, ...)"
	case errors.As(err, &escape):
		return "holds a % that is not followed by two hexadecimal digits"
	case strings.Contains(msg, "invalid port"):
		return "has a port that is not a number"
	case strings.Contains(msg, "missing ']'"):
		return "opens an IPv6 address with [ and does not close it"
	}
	return "is not a URL"
}

// Fetchable refuses a URL that keys, documents or an authorization
// endpoint may not come from, saying what is wrong with it without quoting
// it: the shape Parse checks, then https, or http on a loopback host only,
// and no fragment or user information.
func Fetchable(raw string) error {
	u, problem := Parse(raw)
	if problem != "" {
		return errors.New(problem)
	}
	switch {
	case u.Fragment != "" || strings.Contains(raw, "#"):
		return errors.New("has a fragment")
	case u.User != nil:
		return errors.New("carries user information")
	case u.Scheme == "https":
		return nil
	case u.Scheme == "http" && Loopback(u.Hostname()):
		return nil
	}
	if u.Scheme == "http" {
		return errors.New("must be https: http only on a loopback host (127.0.0.1, ::1, localhost)")
	}
	return errors.New("must be https, not another scheme")
}

// Loopback reports whether host (without port) is localhost, in any case,
// or a loopback IP address.
func Loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
