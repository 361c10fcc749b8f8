package authn

import (
	"slices"
	"strconv"
	"strings"

	"github.com/svckit/svc/modules/authn/bearer"
)

// ACRLevels orders the acr values the gate's routes may ask for, weakest
// first, as an identity provider's levels of assurance are ordered
// (Keycloak's LoA "1" < "2" < "3"). With it, [RequireACR] asks "at least":
// RequireACR("2") admits a token with acr "2" or "3", and RequireACR("1",
// "2") admits "1" and above. A token whose acr is not listed (or that has
// none) is refused 401 insufficient-user-authentication as without
// ACRLevels; the challenge's acr_values names the level the route asks
// for ("2"), not the stronger ones it also admits. Several RequireACR on
// one route each apply: the strongest asked wins. `check` prints the
// route's step-up as "acr>=2".
//
// New refuses an empty list, a value listed twice, and a value a challenge
// cannot name (empty, or holding a space, a quote, a backslash or a
// character outside printable ASCII); the gate refuses at install a route
// whose RequireACR names a value the list lacks.
func ACRLevels(levels ...string) Option {
	return func(c *gateConfig) { c.acrLevels = newACRLevels(levels) }
}

// acrLevels is the order of [ACRLevels]: rank of each value, weakest 0.
type acrLevels struct {
	order []string
	rank  map[string]int
	err   error // what New refuses
}

func newACRLevels(levels []string) *acrLevels {
	l := &acrLevels{order: slices.Clone(levels), rank: make(map[string]int, len(levels))}
	fail := func(problem string) *acrLevels {
		l.err = &bearer.ConfigError{Setting: "authn.ACRLevels", Problem: problem}
		return l
	}
	if len(levels) == 0 {
		return fail("lists no level: name the acr values weakest first, such as authn.ACRLevels(\"1\", \"2\", \"3\")")
	}
	if bad := badScope(levels); bad != "" {
		return fail("lists " + bad + ", which RFC 9470 cannot name in acr_values: a value is printable ASCII other than space, \" and \\")
	}
	for i, v := range levels {
		if _, dup := l.rank[v]; dup {
			return fail("lists " + strconv.Quote(v) + " twice: each level has one place in the order")
		}
		l.rank[v] = i
	}
	return l
}

// problem is what New refuses; nil for no ACRLevels.
func (l *acrLevels) problem() error {
	if l == nil {
		return nil
	}
	return l.err
}

// asked is the rank a route's RequireACRs ask at least (the strongest of
// their weakest values), and the first value, quoted, the levels do not
// list ("" when all are listed).
func (l *acrLevels) asked(s stepUp) (rank int, unlisted string) {
	rank = -1
	for _, values := range s.acrEach {
		least := -1
		for _, v := range values {
			r, ok := l.rank[v]
			if !ok {
				return 0, strconv.Quote(v)
			}
			if least < 0 || r < least {
				least = r
			}
		}
		rank = max(rank, least)
	}
	return rank, ""
}

// admits reports whether a token whose acr is acr meets s's RequireACRs:
// a listed level at or above the one they ask.
func (l *acrLevels) admits(s stepUp, acr string) bool {
	got, ok := l.rank[acr]
	want, unlisted := l.asked(s)
	return ok && unlisted == "" && want >= 0 && got >= want
}

// acrAsked is the acr_values of a step-up refusal: under ACRLevels the
// level the route asks for, else the values it accepts.
func acrAsked(gc *gateCtx, s stepUp) []string {
	if gc != nil {
		if l := gc.g.cfg.acrLevels; l != nil {
			if rank, unlisted := l.asked(s); unlisted == "" && rank >= 0 {
				return []string{l.order[rank]}
			}
		}
	}
	return s.acr
}

// stepProblem says why a route's step-up can never be met: under
// ACRLevels a RequireACR without values or with one the levels lack (an
// empty common set of values is no problem: the strongest level asked
// wins), else as [stepUp.problem].
func (g *Gate) stepProblem(s stepUp) string {
	l := g.cfg.acrLevels
	if l == nil || !s.acrSet {
		return s.problem()
	}
	for _, values := range s.acrEach {
		if len(values) == 0 {
			return "requires acr values (authn.RequireACR) that no token can hold: name at least one level of authn.ACRLevels"
		}
	}
	if _, unlisted := l.asked(s); unlisted != "" {
		return "requires acr value " + unlisted + " (authn.RequireACR), which authn.ACRLevels does not list (" +
			strings.Join(l.order, ", ") + "): name a listed level, or list it"
	}
	s.acrSet = false
	return s.problem()
}

// stepWords is how `check` prints a route's step-up: under ACRLevels the
// level asked as "acr>=2".
func (g *Gate) stepWords(s stepUp) []string {
	words := s.words()
	if l := g.cfg.acrLevels; l != nil && s.acrSet {
		if rank, unlisted := l.asked(s); unlisted == "" && rank >= 0 {
			words[0] = "acr>=" + l.order[rank]
		}
	}
	return words
}
