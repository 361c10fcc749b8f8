package oauthclient

import (
	"context"
	"net/url"
)

// actorSource gives the actor token of an exchange and its RFC 8693 token
// type, at each fetch.
type actorSource struct {
	token func(ctx context.Context) (token, tokenType string, err error)
	// setting names what set the actor, for refusals and errors: an
	// option, or the environment variable.
	setting string
	// fetched is set when the token comes from another pattern's fetch,
	// which needs a fetch turn of its own and counts and logs its own
	// failures.
	fetched bool
}

// Settings that name an actor in code.
const (
	settingActor     = "oauthclient.Actor"
	settingActorFile = "oauthclient.ActorAssertionFile"
)

// Actor makes a token-exchange pattern name the service itself as the
// actor (RFC 8693 §2.1, actor_token): every exchange sends the current
// token of from, a client-credentials pattern of the same service, with
// actor_token_type access_token, so the issued token says who acts for the
// caller (its act claim). The actor token is taken when the exchange is
// fetched: a refreshed one is used from then on, and a failure to get it
// fails the exchange with from's error. It refuses a nil pattern and one
// that is not client credentials; the pattern it is given to must be a
// TokenExchange pattern (the on-behalf-of grant has no actor). It
// refuses [ActorAssertionFile] on the same pattern: one actor each.
func Actor(from *Pattern) PatternOption {
	return actorPattern(settingActor, from)
}

// EnvActor is [Actor] as the environment variable named sets it
// (SVC_TOKENEXCHANGE_<NAME>_ACTOR, which fxsvc reads): its errors name the
// variable, and an [Actor] or [ActorAssertionFile] in code replaces it
// rather than being refused as a second actor (options override the
// environment). An app configuring a pattern in code uses Actor.
func EnvActor(variable string, from *Pattern) PatternOption {
	return actorPattern(variable, from)
}

// actorPattern is Actor set by setting, which its errors name: the
// option, or SVC_TOKENEXCHANGE_<NAME>_ACTOR (through fxsvc).
func actorPattern(setting string, from *Pattern) PatternOption {
	return patternOption(func(c *patternConfig) error {
		if from == nil || from.kind != kindClientCredentials {
			return &ConfigError{Setting: setting, Problem: "the actor must be a client-credentials pattern (oauthclient.ClientCredentials)"}
		}
		if setting == settingActor {
			if err := oneActor(c, settingActor, settingActorFile); err != nil {
				return err
			}
		}
		c.actor = &actorSource{setting: setting, fetched: true, token: func(ctx context.Context) (string, string, error) {
			t, err := from.Token(ctx)
			return t.Value, TokenTypeAccessToken, err
		}}
		return nil
	})
}

// ActorAssertionFile is [Actor] with a workload identity token as the
// actor: the file at path (a Kubernetes projected service-account token, a
// SPIFFE JWT-SVID written by a sidecar) is read again at every exchange
// and sent with actor_token_type jwt. A file that cannot be read then
// fails that exchange, counted and logged as a failed fetch. It refuses a
// path it cannot read, or an empty file, when the pattern is built, and
// [Actor] on the same pattern.
func ActorAssertionFile(path string) PatternOption {
	return actorFile(settingActorFile, path)
}

// actorFile is ActorAssertionFile set by setting, which its errors name:
// the option, or SVC_TOKENEXCHANGE_<NAME>_ACTOR_ASSERTION_FILE.
func actorFile(setting, path string) PatternOption {
	return patternOption(func(c *patternConfig) error {
		if setting == settingActorFile {
			if err := oneActor(c, settingActorFile, settingActor); err != nil {
				return err
			}
		}
		if _, err := readFile(setting, "actor token file", path); err != nil {
			return err
		}
		c.actor = &actorSource{setting: setting, token: func(context.Context) (string, string, error) {
			t, err := readFile(setting, "actor token file", path)
			return t, TokenTypeJWT, err
		}}
		return nil
	})
}

// oneActor refuses the option setting when the other actor option was
// given to the same pattern. An actor from the environment is replaced:
// options override the environment.
func oneActor(c *patternConfig, setting, other string) error {
	if c.actor != nil && c.actor.setting == other {
		return &ConfigError{Setting: setting, Problem: "set either it or " + other + " on a pattern, not both: an exchange has one actor"}
	}
	return nil
}

// addActor puts the actor token into form.
func addActor(ctx context.Context, actor *actorSource, form url.Values) error {
	tok, typ, err := actor.token(ctx)
	if err != nil {
		return err
	}
	form.Set("actor_token", tok)
	form.Set("actor_token_type", typ)
	return nil
}
