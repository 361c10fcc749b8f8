package oauthclient

import (
	"net/url"
	"sort"
	"strings"
)

// setParams names the token-request parameters svc writes itself, with the
// option that sets each one: an extra parameter of the same name would
// send it twice or override svc's, so [TokenParam] refuses it.
var setParams = map[string]string{
	"grant_type":            "the pattern's kind (ClientCredentials, TokenExchange, TokenExchangeOnBehalfOf)",
	"scope":                 "oauthclient.Scopes",
	"audience":              "oauthclient.Audience",
	"resource":              "oauthclient.Resource",
	"client_id":             "oauthclient.ClientID",
	"client_secret":         "oauthclient.ClientSecret",
	"client_assertion":      "oauthclient.PrivateKey, PrivateKeySigner, AssertionFile or Assertion",
	"client_assertion_type": "oauthclient.PrivateKey, PrivateKeySigner, AssertionFile or Assertion",
	"subject_token":         "Pattern.TokenFor (the caller's token)",
	"subject_token_type":    "oauthclient.SubjectTokenType",
	"requested_token_type":  "oauthclient.RequestedTokenType",
	"actor_token":           "the token-exchange actor",
	"actor_token_type":      "the token-exchange actor",
	"assertion":             "Pattern.TokenFor (the caller's token)",
	"requested_token_use":   "oauthclient.TokenExchangeOnBehalfOf",
}

// TokenParam adds a parameter to every token request of the pattern, for
// what the server needs beyond the standard ones (an IdP's own fields,
// e.g. Entra's "claims" or a tenant hint); several values send it several
// times. A later TokenParam of the same name replaces the earlier one and
// the one from SVC_..._<NAME>_PARAMS. It refuses an empty name and a
// parameter svc sets itself (grant_type, scope, audience, resource, the
// client authentication and token-exchange fields), naming the option that
// sets it.
func TokenParam(name string, values ...string) PatternOption {
	return patternOption(func(c *patternConfig) error {
		if err := checkParam("oauthclient.TokenParam", name); err != nil {
			return err
		}
		if c.params == nil {
			c.params = url.Values{}
		}
		c.params[name] = append([]string(nil), values...)
		return nil
	})
}

func checkParam(setting, name string) error {
	if name == "" {
		return &ConfigError{Setting: setting, Problem: "a parameter name is empty"}
	}
	if by, ok := setParams[strings.ToLower(name)]; ok {
		return &ConfigError{Setting: setting, Problem: "parameter " + name + " is one svc sets itself: use " + by}
	}
	return nil
}

// envParams reads SVC_..._<NAME>_PARAMS, a URL query string
// ("tenant=a&prompt=none"), refusing what TokenParam refuses.
func envParams(setting, raw string) (url.Values, error) {
	if raw == "" {
		return nil, nil
	}
	params, err := url.ParseQuery(raw)
	if err != nil {
		return nil, &ConfigError{Setting: setting, Problem: "is not a URL query string (name=value&name=value)"}
	}
	names := make([]string, 0, len(params))
	for name := range params {
		names = append(names, name)
	}
	sort.Strings(names) // the same error for the same setting, whatever map order
	for _, name := range names {
		if err := checkParam(setting, name); err != nil {
			return nil, err
		}
	}
	return params, nil
}
