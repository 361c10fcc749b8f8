package dpop

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/svckit/svc/internal/reqfacts"
)

// sameURL reports whether htu names the URL the client sent r to: scheme
// and host by the app's trusted proxies (reqfacts.ClientOrigin), the path
// as received; query and fragment ignored on both sides, both normalized
// (RFC 9449 §4.3, RFC 3986 §6.2.2 and §6.2.3).
func sameURL(htu string, r *http.Request) bool {
	claim, ok := normalURL(htu)
	if !ok {
		return false
	}
	scheme, host := reqfacts.ClientOrigin(r)
	got, ok := normalURL(scheme + "://" + host + r.URL.EscapedPath())
	return ok && claim == got
}

// normalURL is u's scheme, host and path in normal form: scheme and host
// lowercase, the scheme's default port dropped, percent-encodings of
// unreserved characters decoded and the rest in uppercase hex, dot
// segments removed, an empty path "/". Only absolute http and https URLs
// without userinfo have one.
func normalURL(u string) (string, bool) {
	p, err := url.Parse(u)
	if err != nil || p.Opaque != "" || p.User != nil || p.Host == "" {
		return "", false
	}
	scheme := strings.ToLower(p.Scheme)
	if scheme != "http" && scheme != "https" {
		return "", false
	}
	host, port := strings.ToLower(p.Hostname()), p.Port()
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" && !(scheme == "http" && port == "80" || scheme == "https" && port == "443") {
		host += ":" + port
	}
	path, ok := normalPath(p.EscapedPath())
	if !ok {
		return "", false
	}
	return scheme + "://" + host + path, true
}

// normalPath normalizes percent-encoding, then removes dot segments.
func normalPath(p string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c != '%' {
			b.WriteByte(c)
			continue
		}
		if i+2 >= len(p) || !isHex(p[i+1]) || !isHex(p[i+2]) {
			return "", false
		}
		d := unhex(p[i+1])<<4 | unhex(p[i+2])
		if isUnreserved(d) {
			b.WriteByte(d)
		} else {
			b.WriteByte('%')
			b.WriteString(strings.ToUpper(p[i+1 : i+3]))
		}
		i += 2
	}
	out := removeDots(b.String())
	if out == "" {
		out = "/"
	}
	return out, true
}

// removeDots is RFC 3986 §5.2.4 on an absolute path.
func removeDots(in string) string {
	if !strings.Contains(in, ".") {
		return in
	}
	var segs []string
	parts := strings.Split(in, "/")
	for i, s := range parts {
		last := i == len(parts)-1
		switch s {
		case ".":
			if last {
				segs = append(segs, "")
			}
		case "..":
			if len(segs) > 1 {
				segs = segs[:len(segs)-1]
			}
			if last {
				segs = append(segs, "")
			}
		default:
			segs = append(segs, s)
		}
	}
	out := strings.Join(segs, "/")
	if !strings.HasPrefix(out, "/") {
		out = "/" + out
	}
	return out
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}

func isUnreserved(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-._~", c) >= 0
}
