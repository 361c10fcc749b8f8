package authn

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/svckit/svc/internal/reqfacts"
)

// excludeSet matches request paths against the Exclude patterns.
type excludeSet struct{ reqfacts.PathSet }

// excludeError is an Exclude pattern the gate refuses.
type excludeError struct {
	Pattern string
	Problem string
}

func (e *excludeError) Error() string {
	return fmt.Sprintf("authn: Exclude(%q) %s", e.Pattern, e.Problem)
}

func newExcludeSet(patterns []string) (excludeSet, error) {
	var s excludeSet
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
			if strings.ContainsAny(strings.TrimSuffix(p, "*"), "*{}") {
				return s, &excludeError{p, "may hold * only as a final /*"}
			}
			s.Add(p)
		case strings.Contains(p, "*"):
			return s, &excludeError{p, "ends inside a path segment; use an exact path or a prefix ending in /*"}
		case strings.ContainsAny(p, "{}"):
			return s, &excludeError{p, "holds a route parameter; exclude concrete paths"}
		default:
			s.Add(p)
		}
	}
	return s, nil
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
	if reqfacts.ExclusionHolds(s.MatchUnder, u.Path, escaped) {
		return true
	}
	if routes == nil || !reqfacts.ExclusionHolds(s.MatchBare, u.Path, escaped) {
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
	return s.CoversTemplate(pattern)
}
