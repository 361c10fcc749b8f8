package authn

import (
	"fmt"
	"net/http"
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

func (s excludeSet) match(path string) bool { return s.matchUnder(path) || s.matchBare(path) }

// matchUnder reports whether path is an exclusion or lies under one.
func (s excludeSet) matchUnder(path string) bool {
	if _, ok := s.exact[path]; ok {
		return true
	}
	for _, p := range s.prefixes {
		if strings.HasPrefix(path, p) {
			return true
		}
	}
	return false
}

// matchBare reports whether path is a prefix exclusion without its slash:
// "/docs" for "/docs/*".
func (s excludeSet) matchBare(path string) bool {
	for _, p := range s.prefixes {
		if path == p[:len(p)-1] {
			return true
		}
	}
	return false
}

// matchRequest reports whether a request is excluded, as the router reads
// its path (reqfacts.ExclusionHolds). The bare form of a prefix ("/docs"
// for "/docs/*") holds only where the router sends it to a route the
// exclusion covers (Huma's /docs page): a router may send "/public" to a
// route such as "/{id}", which Exclude("/public/*") never meant to open.
// Without a known router it does not hold, which fails closed.
func (s excludeSet) matchRequest(r *http.Request, routes routeFinder) bool {
	u := r.URL
	escaped := u.RawPath
	if escaped == "" {
		escaped = u.Path
	}
	if reqfacts.ExclusionHolds(s.matchUnder, u.Path, escaped) {
		return true
	}
	if routes == nil || !reqfacts.ExclusionHolds(s.matchBare, u.Path, escaped) {
		return false
	}
	pattern, _, found := routes.find(r)
	return found && s.matchPattern(pattern)
}

// matchPattern reports whether a route template lies under an exclusion, so
// that install can refuse an excluded route that requires scopes.
func (s excludeSet) matchPattern(pattern string) bool {
	// A route template such as /docs/* or /docs/{file} is excluded when
	// everything before its first parameter is.
	return s.match(pattern) || reqfacts.TemplateUnder(pattern, s.prefixes)
}
