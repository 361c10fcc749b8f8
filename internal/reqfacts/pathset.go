package reqfacts

import "strings"

// PathSet is a set of exclusion patterns, each already checked by its
// owner (the gate's Exclude, a component's Include and Exclude): an exact
// path, or a prefix written "/p/*". The gate and the components behind it
// match their exclusions by it, so that a path one of them leaves alone
// the other does too.
type PathSet struct {
	exact    map[string]struct{}
	prefixes []string // each ends in "/"
}

// Add adds a checked pattern: "/p/*" is the prefix "/p/", anything else an
// exact path.
func (s *PathSet) Add(pattern string) {
	if strings.HasSuffix(pattern, "/*") {
		s.prefixes = append(s.prefixes, strings.TrimSuffix(pattern, "*"))
		return
	}
	if s.exact == nil {
		s.exact = map[string]struct{}{}
	}
	s.exact[pattern] = struct{}{}
}

// Empty reports whether the set holds no pattern.
func (s PathSet) Empty() bool { return len(s.exact) == 0 && len(s.prefixes) == 0 }

// Match reports whether path is one of the set, lies under one, or is a
// prefix without its slash.
func (s PathSet) Match(path string) bool { return s.MatchUnder(path) || s.MatchBare(path) }

// MatchUnder reports whether path is one of the set or lies under one.
func (s PathSet) MatchUnder(path string) bool {
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

// MatchBare reports whether path is a prefix without its slash: "/docs"
// for "/docs/*". Whether that holds depends on the route the router sends
// it to (see CoversTemplate).
func (s PathSet) MatchBare(path string) bool {
	for _, p := range s.prefixes {
		if path == p[:len(p)-1] {
			return true
		}
	}
	return false
}

// CoversTemplate reports whether a route template lies under the set:
// it matches, or everything before its first parameter lies under a
// prefix, as "/docs/{file}" and "/docs/*" lie under "/docs/*".
func (s PathSet) CoversTemplate(pattern string) bool {
	if s.Match(pattern) {
		return true
	}
	i := strings.IndexAny(pattern, "{*")
	if i <= 0 {
		return false
	}
	for _, p := range s.prefixes {
		if strings.HasPrefix(pattern[:i], p) {
			return true
		}
	}
	return false
}
