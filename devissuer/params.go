package devissuer

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// tokenParams are the parameters that shape the token on /mint and on
// every grant of the token endpoint: what a real provider decides from
// its login and policies, chosen here by the caller.
var tokenParams = []string{"scope", "audience", "resource", "ttl", "acr", "amr", "auth_time", "sid", "extra", "format", "typ"}

// clientParams authenticate a client at the token, introspection and
// revocation endpoints.
var clientParams = []string{"client_id", "client_secret", "client_assertion", "client_assertion_type"}

// knownOnly refuses a parameter not in known, nor in the lists given:
// one the issuer does not understand would otherwise be dropped, and a
// token made without it would look like a failure of the service.
func knownOnly(v url.Values, known ...string) error {
	return knownIn(v, known)
}

func knownIn(v url.Values, known []string, more ...[]string) error {
	all := slices.Concat(append(more, known)...)
	var unknown []string
	for name := range v {
		if !slices.Contains(all, name) {
			unknown = append(unknown, strconv.Quote(name))
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	sort.Strings(unknown)
	sort.Strings(all)
	return fmt.Errorf("unknown parameter %s: this endpoint understands %s", strings.Join(unknown, ", "), strings.Join(all, ", "))
}

// once refuses a parameter given more than once (RFC 6749 §3.2), but
// audience and resource, which RFC 8693 and RFC 8707 let a client repeat.
func once(v url.Values) error {
	for name, vals := range v {
		if len(vals) > 1 && name != "audience" && name != "resource" {
			return fmt.Errorf("parameter %q is given %d times", name, len(vals))
		}
	}
	return nil
}

// readTokenParams sets on t what tokenParams say. It refuses a bad ttl,
// auth_time, extra or format, saying what to write.
func readTokenParams(v url.Values, t *Token) error {
	if s := v.Get("scope"); s != "" {
		t.Scopes = strings.Fields(s)
	}
	if a := withDefault(v.Get("audience"), v.Get("resource")); a != "" {
		t.Audience = a
	}
	if auds := slices.Concat(v["audience"], v["resource"]); len(auds) > 1 {
		setExtra(t, "aud", auds)
	}
	if s := v.Get("ttl"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 {
			return errors.New("ttl must be a positive duration such as 30m")
		}
		t.TTL = d
	}
	t.ACR = withDefault(v.Get("acr"), t.ACR)
	if s := v.Get("amr"); s != "" {
		t.AMR = strings.Fields(s)
	}
	t.SessionID = withDefault(v.Get("sid"), t.SessionID)
	if s := v.Get("auth_time"); s != "" {
		at, err := readAuthTime(s)
		if err != nil {
			return err
		}
		t.AuthTime = at
	}
	if s := v.Get("extra"); s != "" {
		var extra map[string]any
		if err := json.Unmarshal([]byte(s), &extra); err != nil || extra == nil {
			return errors.New(`extra must be a JSON object of claims, such as {"tenant":"acme"}`)
		}
		for k, val := range extra {
			setExtra(t, k, val)
		}
	}
	switch v.Get("format") {
	case "", "jwt":
	case "opaque":
		t.Opaque = true
	default:
		return errors.New("format is jwt (the default) or opaque")
	}
	t.Type = withDefault(v.Get("typ"), t.Type)
	return nil
}

// readAuthTime reads auth_time as "now", Unix seconds, or a duration ago
// ("10m": ten minutes ago).
func readAuthTime(s string) (time.Time, error) {
	if s == "now" {
		return time.Now(), nil
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil && n > 0 {
		return time.Unix(n, 0), nil
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return time.Now().Add(-d), nil
	}
	return time.Time{}, errors.New(`auth_time is "now", Unix seconds, or how long ago such as 10m`)
}

func setExtra(t *Token, name string, v any) {
	if t.Extra == nil {
		t.Extra = map[string]any{}
	}
	t.Extra[name] = v
}
