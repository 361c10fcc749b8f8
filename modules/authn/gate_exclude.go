package authn

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/svckit/svc/internal/reqfacts"
)

// excludeSet matches request paths against the Exclude patterns.
type excludeSet struct {
	exact    map[string]struct{}
	prefixes []string // each ends in "/"
}

// excludeError is an Exclude pattern the gate refuses.
type excludeError struct {
	Pattern string
	Problem string
}

func (e *excludeError) Error() string {
	return fmt.Sprintf("authn: Exclude(%q) %s", e.Pattern, e.Problem)
}

func newExcludeSet(patterns []string) (excludeSet, error) {
	s := excludeSet{exact: map[string]struct{}{}}
	for _, p := range patterns {
		switch {
		case p == "" || p[0] != '/':
			if p == "*" {
				return s, &excludeError{p, "matches every path; exclude only the paths that must stay public"}
			}
			return s, &excludeError{p, "must start with /"}
		case strings.Contains(p, "//") || strings.Contains(p+"/", "/./") || strings.Contains(p+"/", "/../"):
			return s, &excludeError{p, "holds an empty, . or .. segment; write the path as clients send it"}
		case p == "/*":
			return s, &excludeError{p, "matches every path; exclude only the paths that must stay public"}
		case strings.HasSuffix(p, "/*"):
			prefix := strings.TrimSuffix(p, "*")
			if strings.ContainsAny(prefix, "*{}") {
				return s, &excludeError{p, "may hold * only as a final /*"}
			}
			s.prefixes = append(s.prefixes, prefix)
		case strings.Contains(p, "*"):
			return s, &excludeError{p, "ends inside a path segment; use an exact path or a prefix ending in /*"}
		case strings.ContainsAny(p, "{}"):
			return s, &excludeError{p, "holds a route parameter; exclude concrete paths"}
		default:
			s.exact[p] = struct{}{}
		}
	}
	return s, nil
}

func (s excludeSet) match(path string) bool {
	if _, ok := s.exact[path]; ok {
		return true
	}
	for _, p := range s.prefixes {
		if strings.HasPrefix(path, p) || path == p[:len(p)-1] {
			return true
		}
	}
	return false
}

// matchRequest reports whether a request's URL is excluded, as the router
// reads its path (reqfacts.ExclusionHolds).
func (s excludeSet) matchRequest(u *url.URL) bool {
	escaped := u.RawPath
	if escaped == "" {
		escaped = u.Path
	}
	return reqfacts.ExclusionHolds(s.match, u.Path, escaped)
}

// matchPattern reports whether a route template lies under an exclusion, so
// that install can refuse an excluded route that requires scopes.
func (s excludeSet) matchPattern(pattern string) bool {
	if s.match(pattern) {
		return true
	}
	// A route template such as /docs/* or /docs/{file} is excluded when
	// everything before its first parameter is.
	if i := strings.IndexAny(pattern, "{*"); i > 0 {
		head := pattern[:i]
		for _, p := range s.prefixes {
			if strings.HasPrefix(head, p) {
				return true
			}
		}
	}
	return false
}
