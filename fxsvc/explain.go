package fxsvc

import (
	"fmt"
	"regexp"
	"strings"

	"go.uber.org/dig"
)

// duplicateProvide is dig's error for a type provided twice; it captures
// the type, with its name tag if any.
var duplicateProvide = regexp.MustCompile(`cannot provide (\S+) from \S+: already provided by `)

// registration is what a component provides to the graph, in the kit's
// words: what it is, and the option that registers it.
type registration struct{ what, option string }

// registrations are the components whose second registration fx refuses
// as a type provided twice, by that type as dig prints it. A component
// that provides nothing of its own claims its kind instead
// (lifecycle.Singleton), whose error already names it.
var registrations = map[string]registration{
	"*fxsvc.Server":            {"HTTP server", "fxsvc.Serve"},
	"fxsvc.trustedProxies":     {"HTTP server", "fxsvc.Serve"},
	"*fxsvc.forTests":          {"test mode", "fxsvc.ForTests"},
	"*authn.Gate":              {"authentication gate", "fxsvc.Authn"},
	"*oauthclient.Client":      {"oauth client", "fxsvc.OAuthClient"},
	"*metrics.Metrics":         {"metrics", "fxsvc.Metrics"},
	"*tracing.Tracing":         {"tracing", "fxsvc.Tracing"},
	"*svcerrors.Responses":     {"error format", "fxsvc.Errors or fxsvc.TMFErrors"},
	"*ratelimit.Limiter":       {"rate limits", "fxsvc.RateLimits"},
	"*idempotency.Component":   {"idempotency", "fxsvc.Idempotency"},
	"*conditional.Component":   {"conditional", "fxsvc.Conditional"},
	"*responsecache.Component": {"response cache", "fxsvc.ResponseCache"},
	"*redisstore.Client":       {"Redis connection", "fxredis.Redis"},
}

// explain is the sentence for a graph error. A component registered twice
// is named by the option that registers it, instead of dig's "already
// provided by" and a file of the kit. Any other error a constructor
// returned reaches the user as the constructor wrote it: dig's chain
// ("could not build arguments for function ... received non-nil error
// from function ...") names internals the user never wrote and hides the
// variable to fix at the end of a long line.
func explain(err error) string {
	if s, ok := explainDuplicate(err.Error()); ok {
		return s
	}
	// The kit's own errors start with "svc:" too; the line says it once.
	return strings.TrimPrefix(dig.RootCause(err).Error(), "svc: ")
}

func explainDuplicate(msg string) (string, bool) {
	m := duplicateProvide.FindStringSubmatch(msg)
	if m == nil {
		return "", false
	}
	typ := m[1]
	if r, ok := registrations[typ]; ok {
		return fmt.Sprintf("only one %s may be registered per app: %s is registered twice; remove the second registration", r.what, r.option), true
	}
	if name, ok := strings.CutPrefix(typ, `*oauthclient.Pattern[name="`); ok {
		name = strings.TrimSuffix(name, `"]`)
		return fmt.Sprintf("only one outbound pattern may be named %q per app: fxsvc.ClientCredentials, fxsvc.TokenExchange or fxsvc.TokenExchangeOnBehalfOf registers %q twice; remove one, or give each its own name", name, name), true
	}
	if typ == "http.Handler" && strings.Contains(msg, `/fxsvc".ServeMux.`) {
		return fmt.Sprintf("only one router may be registered per app: fxsvc.ServeMux provides the app's %s, and another registration does too (fxsvc.ServeMux twice, or an fx.Provide of its own); remove one", typ), true
	}
	return "", false
}
