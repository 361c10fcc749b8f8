package oauthclient

import (
	"strings"
	"time"

	"github.com/caarlos0/env/v11"

	"github.com/svckit/svc/internal/oauthenv"
)

// readPatternEnv reads the pattern's variables (under envPrefix) into
// cfg, before its options. It returns RESILIENCE_ATTEMPT_TIMEOUT (0 when
// unset), which applies after the options: to the Resilience they leave,
// where its AttemptTimeout is 0.
func readPatternEnv(kind patternKind, envPrefix string, cfg *patternConfig) (attempt time.Duration, err error) {
	var e oauthenv.Pattern
	if err := env.ParseWithOptions(&e, env.Options{Prefix: envPrefix}); err != nil {
		return 0, &ConfigError{Setting: envPrefix + "*", Problem: "could not be read"}
	}
	cfg.audience, cfg.resource, cfg.scopes = splitList(e.Audience), splitList(e.Resource), splitList(e.Scopes)
	params, err := envParams(envPrefix+"PARAMS", e.Params)
	if err != nil {
		return 0, err
	}
	cfg.params = params
	switch strings.ToLower(strings.TrimSpace(e.Resilience)) {
	case "", "off":
	case "on":
		_ = Resilience{}.applyPattern(cfg) // the defaults: nothing to refuse
	case "degraded":
		_ = Resilience{Degraded: true}.applyPattern(cfg)
	default:
		return 0, &ConfigError{Setting: envPrefix + "RESILIENCE", Problem: "want on, degraded or off"}
	}
	if v := strings.TrimSpace(e.ResilienceAttemptTimeout); v != "" {
		d, err := parseDuration(v)
		if err != nil || d.(time.Duration) <= 0 {
			return 0, &ConfigError{Setting: envPrefix + envAttemptTimeout, Problem: "want a positive Go duration such as 2s or 500ms, or a number of seconds"}
		}
		attempt = d.(time.Duration)
	}
	if kind == kindTokenExchange {
		var x oauthenv.Exchange
		if err := env.ParseWithOptions(&x, env.Options{Prefix: envPrefix}); err != nil {
			return 0, &ConfigError{Setting: envPrefix + "*", Problem: "could not be read"}
		}
		if x.Actor != "" && x.ActorAssertionFile != "" {
			return 0, &ConfigError{Setting: envPrefix + "ACTOR", Problem: "set either it or " + envPrefix + "ACTOR_ASSERTION_FILE, not both: an exchange has one actor"}
		}
		if x.ActorAssertionFile != "" {
			if err := actorFile(envPrefix+"ACTOR_ASSERTION_FILE", x.ActorAssertionFile).applyPattern(cfg); err != nil {
				return 0, err
			}
		}
	}
	return attempt, nil
}
