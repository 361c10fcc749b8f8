package oauthclient

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/url"
	"os"
)

// AssertionFile authenticates with a client assertion read from a file (a
// workload identity token that another process keeps fresh). The file is
// read again on every token request and sent as client_assertion with the
// jwt-bearer client_assertion_type. An empty path takes
// SVC_OAUTHCLIENT_ASSERTION_FILE. New refuses it when no path is set or the
// file cannot be read.
func AssertionFile(path string) ClientAuth { return assertionFile{path: path} }

type assertionFile struct{ path string }

func (a assertionFile) applyClient(c *clientConfig) error {
	if a.path != "" {
		c.assertionFile = a.path
	}
	c.auth = a
	return nil
}

func (a assertionFile) check(cfg *clientConfig) error {
	if cfg.assertionFile == "" {
		return &ConfigError{Setting: clientEnvPrefix + "ASSERTION_FILE", Problem: "oauthclient.AssertionFile needs a path: set it or pass one"}
	}
	_, err := readAssertion(cfg.assertionFile)
	return err
}

func (a assertionFile) method(*metadata) string { return "private_key_jwt" }

func (a assertionFile) rejectHint(*metadata) string {
	return "the client authenticated with private_key_jwt; check " + clientEnvPrefix + "CLIENT_ID and the assertion in " + clientEnvPrefix + "ASSERTION_FILE (expired, or for another audience?)"
}

func (a assertionFile) authenticate(_ context.Context, c *Client, _ *metadata, _ http.Header, form url.Values) error {
	assertion, err := readAssertion(c.assertionFile)
	if err != nil {
		return err
	}
	setAssertion(form, c.clientID, assertion)
	return nil
}

// setAssertion authenticates a token request with a client assertion
// (RFC 7523 §2.2), whichever source made it: a key, a file or a fetch.
func setAssertion(form url.Values, clientID, assertion string) {
	form.Set("client_id", clientID)
	form.Set("client_assertion_type", jwtBearerAssertion)
	form.Set("client_assertion", assertion)
}

func readAssertion(path string) (string, error) {
	return readFile(clientEnvPrefix+"ASSERTION_FILE", "assertion file", path)
}

// readFile reads a token file another process keeps fresh, trimmed of
// white space; setting names what to fix when it cannot be read or is
// empty, what the file is.
func readFile(setting, what, path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", &ConfigError{Setting: setting, Problem: "cannot read the " + what + ": " + err.Error()}
	}
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return "", &ConfigError{Setting: setting, Problem: "the " + what + " " + path + " is empty"}
	}
	return string(b), nil
}

// Assertion authenticates with a client assertion (RFC 7523 §2.2, the
// jwt-bearer client_assertion_type) that fetch returns for every token
// request, given that request's context: a workload identity token held
// outside the process and kept fresh by its own source, such as a SPIFFE
// JWT-SVID from the Workload API (package
// github.com/svckit/svc/modules/oauthclient/spiffe). An error from fetch
// fails the token request with an [*UnavailableError] of reason
// "assertion", whose message names oauthclient.Assertion, and is
// remembered like a server failure for the client's retry interval, so
// requests do not ask a broken source in a loop. fetch's context carries
// the client's [Timeout]: a source must return when it ends. New refuses
// a nil fetch.
func Assertion(fetch func(ctx context.Context) (string, error)) ClientAuth {
	return assertionFunc{fetch: fetch}
}

type assertionFunc struct {
	fetch func(ctx context.Context) (string, error)
}

func (a assertionFunc) applyClient(c *clientConfig) error { c.auth = a; return nil }

func (a assertionFunc) check(*clientConfig) error {
	if a.fetch == nil {
		return &ConfigError{Setting: "oauthclient.Assertion", Problem: "the assertion source is nil"}
	}
	return nil
}

func (a assertionFunc) method(*metadata) string { return "private_key_jwt" }

func (a assertionFunc) rejectHint(*metadata) string {
	return "the client authenticated with an assertion from oauthclient.Assertion; check " + clientEnvPrefix +
		"CLIENT_ID and that the authorization server trusts the assertion's issuer and subject (federation)"
}

func (a assertionFunc) authenticate(ctx context.Context, c *Client, _ *metadata, _ http.Header, form url.Values) error {
	assertion, err := a.fetch(ctx)
	if err == nil && assertion == "" {
		err = errors.New("the assertion source returned an empty assertion")
	}
	if err != nil {
		return &UnavailableError{Reason: reasonAssertion, Err: err}
	}
	setAssertion(form, c.clientID, assertion)
	return nil
}
