package authn

import "encoding/json"

// Test helpers over the steps of Verify.

// parsedToken is what the steps before the key make of a token, read
// together for tests of the parsing alone.
type parsedToken struct {
	alg          alg
	kid          string
	signingInput string
	payload      map[string]json.RawMessage
	reg          registered
	sig          []byte
}

// preparse runs the split and header steps, and reads the payload's JSON
// as the claims step does; the first refusal ends it.
func preparse(token string, maxSize int, accepted algSet, types ...string) (parsedToken, *TokenError) {
	s, terr := split(token, maxSize)
	if terr != nil {
		return parsedToken{}, terr
	}
	h, terr := readHeader(&s, accepted, types)
	if terr != nil {
		return parsedToken{}, terr
	}
	payload, reg, err := splitPayload(s.payload)
	if err != nil {
		return parsedToken{}, refuse(ReasonMalformed, err)
	}
	return parsedToken{alg: h.alg, kid: h.kid, signingInput: s.signingInput, payload: payload, reg: reg, sig: s.sig}, nil
}

// splitObject is the payload's members as a map.
func splitObject(raw []byte) (map[string]json.RawMessage, error) {
	obj, _, err := splitPayload(raw)
	return obj, err
}

// registeredIn looks the registered claims up in a claims map. A present
// claim with a nil value stays present, as an empty (invalid) one.
func registeredIn(raw map[string]json.RawMessage) registered {
	var r registered
	for _, name := range [...]string{"iss", "sub", "jti", "aud", "exp", "nbf", "iat", "scope", "scp"} {
		if v, present := raw[name]; present {
			if v == nil {
				v = json.RawMessage{}
			}
			r.set(name, v)
		}
	}
	return r
}

// claimsOf types the registered claims of a claims map.
func claimsOf(raw map[string]json.RawMessage, issuer string, audList []string) (*Claims, ScopeSet, error) {
	return readRegistered(raw, registeredIn(raw), issuer, audList)
}

// readScopes reads the scopes of a claims map.
func readScopes(raw map[string]json.RawMessage) (ScopeSet, error) {
	r := registeredIn(raw)
	return scopesOf(r.scope, r.scp)
}
