package oauthclient

import (
	"context"
	"net/url"
)

// actorSource gives the actor token of an exchange and its RFC 8693 token
// type, at each fetch.
type actorSource func(ctx context.Context) (token, tokenType string, err error)

// Actor makes a token-exchange pattern name the service itself as the
// actor (RFC 8693 §2.1, actor_token): every exchange sends the current
// token of from, a client-credentials pattern of the same service, with
// actor_token_type access_token, so the issued token says who acts for the
// caller (its act claim). The actor token is taken when the exchange is
// fetched: a refreshed one is used from then on, and a failure to get it
// fails the exchange with from's error. It refuses a nil pattern and one
// that is not client credentials; the pattern it is given to must be a
// TokenExchange pattern (the on-behalf-of grant has no actor).
func Actor(from *Pattern) PatternOption {
	return patternOption(func(c *patternConfig) error {
		if from == nil || from.kind != kindClientCredentials {
			return &ConfigError{Setting: "oauthclient.Actor", Problem: "the actor must be a client-credentials pattern (oauthclient.ClientCredentials)"}
		}
		c.actor = func(ctx context.Context) (string, string, error) {
			t, err := from.Token(ctx)
			return t.Value, TokenTypeAccessToken, err
		}
		return nil
	})
}

// ActorAssertionFile is [Actor] with a workload identity token as the
// actor: the file at path (a Kubernetes projected service-account token, a
// SPIFFE JWT-SVID written by a sidecar) is read again at every exchange
// and sent with actor_token_type jwt. It refuses a path it cannot read, or
// an empty file, when the pattern is built.
func ActorAssertionFile(path string) PatternOption {
	return patternOption(func(c *patternConfig) error {
		if _, err := readFile("oauthclient.ActorAssertionFile", "actor token file", path); err != nil {
			return err
		}
		c.actor = func(context.Context) (string, string, error) {
			t, err := readFile("oauthclient.ActorAssertionFile", "actor token file", path)
			return t, TokenTypeJWT, err
		}
		return nil
	})
}

// addActor puts the actor token into form.
func addActor(ctx context.Context, actor actorSource, form url.Values) error {
	tok, typ, err := actor(ctx)
	if err != nil {
		return err
	}
	form.Set("actor_token", tok)
	form.Set("actor_token_type", typ)
	return nil
}
