package bearer

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
	payload, reg, err := splitPayload(s.payload, nil)
	if err != nil {
		return parsedToken{}, refuse(ReasonMalformed, err)
	}
	return parsedToken{alg: h.alg, kid: h.kid, signingInput: s.signingInput, payload: payload, reg: reg, sig: s.sig}, nil
}

// splitObject is the payload's members as a map.
func splitObject(raw []byte) (map[string]json.RawMessage, error) {
	obj, _, err := splitPayload(raw, nil)
	return obj, err
}

// registeredIn picks the registered claims out of a claims map, as the
// claims step picks them out of a payload.
func registeredIn(raw map[string]json.RawMessage) registered {
	text, err := json.Marshal(raw)
	if err != nil {
		panic(err)
	}
	_, r, err := splitPayload(text, nil)
	if err != nil {
		panic(err)
	}
	return r
}

// readScopes reads the scopes of a claims map.
func readScopes(raw map[string]json.RawMessage) (ScopeSet, error) {
	r := registeredIn(raw)
	return scopesOf(r.scope, r.scp)
}
