package reqfacts

import "strings"

// ExclusionHolds reports whether an exclusion, matched by match, holds for
// a request path given decoded and as the client sent it (escaped). Both
// forms must match: chi routes on the escaped path when the client's
// encoding differs from the default one and ServeMux keeps an escaped
// slash inside its segment, so "/public%2Fx" decodes under "/public/*" yet
// is routed to a route such as "/{id}". A path with a "." or ".." segment
// never holds one: a handler that cleans paths (http.FileServer) serves
// "/public/../secret" as "/secret". Either way the request is treated
// like any other, which fails closed.
func ExclusionHolds(match func(string) bool, decoded, escaped string) bool {
	return match(decoded) && !hasDotSegment(decoded) && (escaped == decoded || match(escaped))
}

func hasDotSegment(path string) bool {
	for seg := range strings.SplitSeq(path, "/") {
		if seg == "." || seg == ".." {
			return true
		}
	}
	return false
}
