package behind

import (
	"net/http"
	"strings"
)

// NotModified evaluates a GET or HEAD's If-None-Match (weak comparison),
// else its If-Modified-Since, against a 200's validators (RFC 9110 §13.2.2).
func NotModified(r *http.Request, etag, lastModified string) bool {
	if inm := r.Header.Values("If-None-Match"); len(inm) > 0 {
		return etag != "" && AnyMatch(inm, etag, false)
	}
	ims := r.Header.Get("If-Modified-Since")
	if ims == "" || lastModified == "" {
		return false
	}
	since, err := http.ParseTime(ims)
	if err != nil {
		return false
	}
	modified, err := http.ParseTime(lastModified)
	if err != nil {
		return false
	}
	return !modified.After(since)
}

// AnyMatch reports whether any entity tag of the header lines matches
// etag: "*" matches any; strong comparison needs both tags strong.
func AnyMatch(lines []string, etag string, strong bool) bool {
	weakCur := strings.HasPrefix(etag, "W/")
	cur := strings.TrimPrefix(etag, "W/")
	for _, line := range lines {
		for rest := line; ; {
			rest = strings.TrimLeft(rest, " \t,")
			if rest == "" {
				break
			}
			if rest[0] == '*' {
				return true
			}
			weak := strings.HasPrefix(rest, "W/")
			rest = strings.TrimPrefix(rest, "W/")
			if rest == "" || rest[0] != '"' {
				break // malformed: stop reading this line
			}
			end := strings.IndexByte(rest[1:], '"')
			if end < 0 {
				break
			}
			tag := rest[:end+2]
			rest = rest[end+2:]
			if tag != cur {
				continue
			}
			if !strong || (!weak && !weakCur) {
				return true
			}
		}
	}
	return false
}
