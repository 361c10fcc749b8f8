package oauthclient

import (
	"context"
	"encoding/base64"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"

	"github.com/svckit/svc/secret"
)

// ClientAuth is how the client proves its identity to the token endpoint:
// [Secret], [PrivateKey], [PrivateKeySigner] or [AssertionFile]. Pass one to [New]. Without
// one, New picks Secret with the method SVC_OAUTHCLIENT_AUTH_METHOD names
// when it is set, else AssertionFile when SVC_OAUTHCLIENT_ASSERTION_FILE is
// set, else Secret(Auto) when a client secret is configured.
type ClientAuth interface {
	Option
	// check validates the auth against the frozen settings at New.
	check(cfg *clientConfig) error
	// authenticate adds the credentials to one token request. It runs for
	// every attempt, so assertions are never reused.
	authenticate(ctx context.Context, c *Client, meta *metadata, h http.Header, form url.Values) error
	// method is the token_endpoint_auth_method in use, for errors.
	method(meta *metadata) string
	// rejectHint says what to check when the server answers invalid_client
	// to a request authenticated as meta made it.
	rejectHint(meta *metadata) string
}

// SecretMethod chooses how [Secret] sends the client secret.
type SecretMethod int

const (
	// Auto sends the secret as the server's metadata lists in
	// token_endpoint_auth_methods_supported: in the body when only
	// client_secret_post is listed, else with HTTP Basic. A server that
	// lists both but registered the client for client_secret_post (Ory
	// Hydra) answers invalid_client: choose Post then.
	Auto SecretMethod = iota
	// Basic sends client_secret_basic: an Authorization: Basic header with
	// the ID and secret form-encoded first (RFC 6749 §2.3.1).
	Basic
	// Post sends client_secret_post: client_id and client_secret as form
	// fields.
	Post
)

// Secret authenticates with the client secret (SVC_OAUTHCLIENT_CLIENT_SECRET,
// SVC_OAUTHCLIENT_CLIENT_SECRET_FILE or [ClientSecret]). Secret(Auto) lets
// SVC_OAUTHCLIENT_AUTH_METHOD choose the method when it is set; Basic or
// Post conflicts with a different SVC_OAUTHCLIENT_AUTH_METHOD, and New then
// fails rather than pick one silently. New refuses it when no secret is
// configured, and refuses an unknown method.
func Secret(method SecretMethod) ClientAuth { return secretAuth{m: method} }

// String names the method as SVC_OAUTHCLIENT_AUTH_METHOD spells it.
func (m SecretMethod) String() string {
	switch m {
	case Auto:
		return "auto"
	case Basic:
		return "basic"
	case Post:
		return "post"
	}
	return "unknown"
}

// goName is how code spells the method, for errors.
func (m SecretMethod) goName() string {
	switch m {
	case Basic:
		return "oauthclient.Secret(oauthclient.Basic)"
	case Post:
		return "oauthclient.Secret(oauthclient.Post)"
	}
	return "oauthclient.Secret(oauthclient.Auto)"
}

type secretAuth struct{ m SecretMethod }

func (a secretAuth) applyClient(c *clientConfig) error { c.auth = a; return nil }

func (a secretAuth) check(cfg *clientConfig) error {
	if a.m < Auto || a.m > Post {
		return &ConfigError{Setting: "oauthclient.Secret", Problem: "unknown method: use oauthclient.Auto, oauthclient.Basic or oauthclient.Post"}
	}
	if cfg.clientSecret == "" && cfg.clientSecretFile == "" {
		return &ConfigError{
			Setting: clientEnvPrefix + "CLIENT_SECRET",
			Problem: "oauthclient.Secret needs a client secret: set it, " + clientEnvPrefix + "CLIENT_SECRET_FILE or oauthclient.ClientSecret",
		}
	}
	if cfg.clientSecretFile != "" {
		if _, err := readSecretFile(cfg.clientSecretFile); err != nil {
			return err
		}
	}
	return nil
}

// rejectHint names the method that was sent first: a server that lists
// both methods may have registered the client for the other one, and then
// the secret is right but the method is wrong.
func (a secretAuth) rejectHint(meta *metadata) string {
	other := Post
	if a.resolve(meta) == Post {
		other = Basic
	}
	return "the secret was sent as " + a.method(meta) + "; if the client is registered for " +
		secretAuth{m: other}.method(nil) + ", set " + clientEnvPrefix + "AUTH_METHOD=" + other.String() +
		" (or pass " + other.goName() + "); else check " + clientEnvPrefix + "CLIENT_ID and the client secret (" +
		clientEnvPrefix + "CLIENT_SECRET or _CLIENT_SECRET_FILE)"
}

func (a secretAuth) method(meta *metadata) string {
	if a.resolve(meta) == Post {
		return "client_secret_post"
	}
	return "client_secret_basic"
}

// resolve applies the metadata rule: Basic when it is listed, when both are
// listed or when nothing is; body only when the server lists post alone.
func (a secretAuth) resolve(meta *metadata) SecretMethod {
	if a.m != Auto {
		return a.m
	}
	if meta != nil && !slices.Contains(meta.authMethods, "client_secret_basic") &&
		slices.Contains(meta.authMethods, "client_secret_post") {
		return Post
	}
	return Basic
}

func (a secretAuth) authenticate(_ context.Context, c *Client, meta *metadata, h http.Header, form url.Values) error {
	s, err := c.secret()
	if err != nil {
		return err
	}
	if a.resolve(meta) == Post {
		form.Set("client_id", c.clientID)
		form.Set("client_secret", s.Value())
		return nil
	}
	h.Set("Authorization", basicAuth(c.clientID, s.Value()))
	return nil
}

// basicAuth builds client_secret_basic. Unlike net/http's SetBasicAuth it
// form-encodes both parts first, as RFC 6749 §2.3.1 requires, so a secret
// holding ':' or non-ASCII reaches the server intact.
func basicAuth(id, secret string) string {
	raw := url.QueryEscape(id) + ":" + url.QueryEscape(secret)
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(raw))
}

// secret returns the current client secret. A secret file is read on every
// call, so a rotated mount takes effect at the next fetch.
func (c *Client) secret() (secret.String, error) {
	if c.secretFile == "" {
		return c.clientSecret, nil
	}
	return readSecretFile(c.secretFile)
}

func readSecretFile(path string) (secret.String, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		// The os error names the path and the cause, never the content.
		return "", &ConfigError{Setting: clientEnvPrefix + "CLIENT_SECRET_FILE", Problem: "cannot read the secret file: " + err.Error()}
	}
	s := strings.TrimRight(string(b), "\r\n")
	if s == "" {
		return "", &ConfigError{Setting: clientEnvPrefix + "CLIENT_SECRET_FILE", Problem: "the secret file " + path + " is empty"}
	}
	return secret.String(s), nil
}
