package oauthclient

import (
	"errors"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/caarlos0/env/v11"

	"github.com/svckit/svc/internal/oauthenv"
)

// clientEnvPrefix is the prefix of the client's environment variables.
const clientEnvPrefix = oauthenv.ClientPrefix

// envFieldNames maps oauthenv.Client fields to their variables, so a parse error
// names the variable to fix rather than a Go field.
var envFieldNames = map[string]string{
	"Timeout":       clientEnvPrefix + "TIMEOUT",
	"RefreshBefore": clientEnvPrefix + "REFRESH_BEFORE",
	"RetryInterval": clientEnvPrefix + "RETRY_INTERVAL",
	"Bulkhead":      clientEnvPrefix + "BULKHEAD",
	"Fetch":         clientEnvPrefix + "FETCH",
}

// errBadDuration never repeats the value: the same parser serves every
// duration variable and none is secret, but one message fits all.
var errBadDuration = errors.New("want a Go duration such as 30s or 2m, or a number of seconds")

// parseDuration accepts a Go duration ("30s") or a number of seconds ("30",
// "0.5"), the form the other SVC_* duration settings use.
func parseDuration(v string) (any, error) {
	v = strings.TrimSpace(v)
	if d, err := time.ParseDuration(v); err == nil {
		return d, nil
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(f) || math.Abs(f) > float64(math.MaxInt64)/float64(time.Second) {
		return nil, errBadDuration
	}
	return time.Duration(f * float64(time.Second)), nil
}

// errBadCount, like errBadDuration, never repeats the value.
var errBadCount = errors.New("want a whole number, 0 for no cap")

// parseCount reads a cap such as SVC_OAUTHCLIENT_BULKHEAD.
func parseCount(v string) (any, error) {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil {
		return nil, errBadCount
	}
	return n, nil
}

func envOptions(prefix string) env.Options {
	return env.Options{
		Prefix:  prefix,
		FuncMap: map[reflect.Type]env.ParserFunc{reflect.TypeFor[time.Duration](): parseDuration, reflect.TypeFor[int](): parseCount},
	}
}

// loadClientEnv reads SVC_OAUTHCLIENT_* into cfg.
func loadClientEnv(cfg *clientConfig) error {
	var e oauthenv.Client
	if err := env.ParseWithOptions(&e, envOptions(clientEnvPrefix)); err != nil {
		return envError(err, envFieldNames)
	}
	if e.ClientSecret != "" && e.ClientSecretFile != "" {
		return &ConfigError{
			Setting: clientEnvPrefix + "CLIENT_SECRET",
			Problem: "set either it or " + clientEnvPrefix + "CLIENT_SECRET_FILE, not both",
		}
	}
	cfg.issuer = e.Issuer
	cfg.tokenEndpoint = e.TokenEndpoint
	cfg.clientID = e.ClientID
	cfg.clientSecret = e.ClientSecret
	cfg.clientSecretFile = e.ClientSecretFile
	cfg.assertionFile = e.AssertionFile
	cfg.tlsCertFile = e.TLSCertFile
	cfg.tlsKeyFile = e.TLSKeyFile
	cfg.timeout = e.Timeout
	cfg.refreshBefore = e.RefreshBefore
	cfg.retryInterval = e.RetryInterval
	cfg.bulkhead, cfg.maxFetches = e.Bulkhead, e.Fetch
	if v := strings.TrimSpace(e.AuthMethod); v != "" {
		if l := strings.ToLower(v); l == methodTLS || l == methodSelfSignedTLS {
			cfg.envTLS = l
			return nil
		}
		m, ok := parseSecretMethod(v)
		if !ok {
			// The value is not repeated: whatever it is, the fix is the same.
			return &ConfigError{Setting: clientEnvPrefix + "AUTH_METHOD", Problem: "want basic, post, auto (client_secret_basic and client_secret_post are accepted too), " + methodTLS + " or " + methodSelfSignedTLS}
		}
		cfg.envMethod, cfg.envMethodSet = m, true
	}
	return nil
}

// parseSecretMethod reads SVC_OAUTHCLIENT_AUTH_METHOD: the short names, or
// the token_endpoint_auth_method names the server's metadata uses.
func parseSecretMethod(v string) (SecretMethod, bool) {
	switch strings.ToLower(v) {
	case "auto":
		return Auto, true
	case "basic", "client_secret_basic":
		return Basic, true
	case "post", "client_secret_post":
		return Post, true
	}
	return 0, false
}

// envError turns a caarlos0/env error into a ConfigError naming the
// variable. Only duration and count fields can fail to parse, and the
// message never repeats the value.
func envError(err error, names map[string]string) error {
	var agg env.AggregateError
	if errors.As(err, &agg) {
		for _, e := range agg.Errors {
			var pe env.ParseError
			if errors.As(e, &pe) {
				name := names[pe.Name]
				if name == "" {
					name = pe.Name
				}
				return &ConfigError{Setting: name, Problem: pe.Err.Error()}
			}
		}
	}
	return &ConfigError{Setting: "environment", Problem: "could not be read"}
}

// splitList splits an environment list on commas and white space, the
// separators people use for scopes and audiences.
func splitList(v string) []string {
	return strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' })
}
