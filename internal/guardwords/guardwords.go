// Package guardwords says how a route is guarded, in the words of the
// package whose markers guard it, for a refusal that names two
// registrations of one route. Package authn (route markers) and authnhuma
// (operation options) both write such refusals; the sentence is built here
// once so that both read alike.
package guardwords

import "strings"

// Describe says how a route is guarded: pkg is "authn" or "authnhuma",
// anonymous and requires tell whether the route carries the Anonymous and
// Require guards, scopes are the scopes it requires.
func Describe(pkg string, anonymous, requires bool, scopes []string) string {
	require := pkg + ".Require(" + strings.Join(scopes, ", ") + ")"
	switch {
	case anonymous && requires:
		return pkg + ".Anonymous and " + require
	case anonymous:
		return pkg + ".Anonymous"
	case len(scopes) > 0:
		return require
	}
	return "authenticated"
}
