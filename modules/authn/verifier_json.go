package authn

import "encoding/json"

// JSON reading for the pre-parser and the claims. One pass checks a
// segment's grammar (exactly what encoding/json's Valid accepts; the scan
// is in verifier_jsonscan.go) and cuts its top-level members out, without
// reflection and mostly without copies; encoding/json itself still
// unescapes the rare escaped string. FuzzSplitMembers holds the pass to
// json.Valid on arbitrary input.

// member is one top-level member of a JSON object.
type member struct {
	name  string
	value json.RawMessage
}

// splitObject returns the top-level members of a JSON text that is an
// object. It refuses a text that is not valid JSON or not an object, and
// duplicate names (encoding/json would keep the last, so a second "alg" or
// "exp" could hide behind the first); names are compared after unescaping.
// raw must be valid UTF-8.
func splitObject(raw []byte) (map[string]json.RawMessage, error) {
	obj, _, err := splitPayload(raw)
	return obj, err
}

// splitPayload is splitObject that also hands back the registered claims'
// values, picked out on the way so that reading them takes no lookups.
func splitPayload(raw []byte) (map[string]json.RawMessage, registered, error) {
	var buf [16]member
	var reg registered
	members, err := splitMembers(raw, buf[:0])
	if err != nil {
		return nil, reg, err
	}
	obj := make(map[string]json.RawMessage, len(members))
	for i, m := range members {
		obj[m.name] = m.value
		// A name seen before replaces its value instead of adding one.
		if len(obj) != i+1 {
			return nil, registered{}, errDuplicate
		}
		reg.set(m.name, m.value)
	}
	return obj, reg, nil
}

// splitMembers checks that raw is one JSON text (RFC 8259, as json.Valid
// has it) holding an object, and appends its top-level members to buf, in
// order, duplicates included; the values alias raw. raw must be valid
// UTF-8 (json.Valid does not check it; the pre-parser does, first). Any
// departure from the grammar is errNotObject, as is a valid text that is
// not an object.
func splitMembers(raw []byte, buf []member) ([]member, error) {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return nil, errNotObject
	}
	members := buf
	i = skipSpace(raw, i+1)
	if i < len(raw) && raw[i] == '}' {
		i++
	} else {
		for {
			nameEnd, ok := scanString(raw, i)
			if !ok {
				return nil, errNotObject
			}
			quoted := raw[i:nameEnd]
			if i, ok = scanColon(raw, nameEnd); !ok {
				return nil, errNotObject
			}
			end, ok := scanValue(raw, i)
			if !ok {
				return nil, errNotObject
			}
			name, ok := memberName(quoted)
			if !ok {
				return nil, errNotObject
			}
			members = append(members, member{name: name, value: raw[i:end:end]})
			i = skipSpace(raw, end)
			if i >= len(raw) {
				return nil, errNotObject
			}
			if raw[i] == '}' {
				i++
				break
			}
			if raw[i] != ',' {
				return nil, errNotObject
			}
			i = skipSpace(raw, i+1)
		}
	}
	if skipSpace(raw, i) != len(raw) {
		return nil, errNotObject
	}
	return members, nil
}

// uniqueNames reports whether no two members share a name. A JOSE header
// has a handful of members, compared pairwise; a long list goes through a
// map so a hostile header cannot make it quadratic.
func uniqueNames(ms []member) bool {
	if len(ms) <= 16 {
		for i := range ms {
			for j := i + 1; j < len(ms); j++ {
				if ms[i].name == ms[j].name {
					return false
				}
			}
		}
		return true
	}
	seen := make(map[string]struct{}, len(ms))
	for _, m := range ms {
		if _, dup := seen[m.name]; dup {
			return false
		}
		seen[m.name] = struct{}{}
	}
	return true
}

// internString reads a JSON string value and returns known itself when the
// value equals it, so the common case (iss, aud equal to the configured
// ones) allocates nothing.
func internString(raw json.RawMessage, known string) (string, bool) {
	if isJSONString(raw, known) {
		return known, true
	}
	return jsonString(raw)
}

// isJSONString reports whether raw is the JSON string s written without
// escapes (an escaped spelling is compared by the slower path).
func isJSONString(raw json.RawMessage, s string) bool {
	return len(raw) == len(s)+2 && raw[0] == '"' && string(raw[1:len(raw)-1]) == s && !hasEscape(raw[1:len(raw)-1])
}

// memberName unquotes a member name. The common names of JWT headers and
// claims come back as constants, so reading them allocates nothing.
func memberName(quoted []byte) (string, bool) {
	body := quoted[1 : len(quoted)-1]
	switch string(body) {
	case "alg":
		return "alg", true
	case "kid":
		return "kid", true
	case "typ":
		return "typ", true
	case "iss":
		return "iss", true
	case "sub":
		return "sub", true
	case "aud":
		return "aud", true
	case "exp":
		return "exp", true
	case "nbf":
		return "nbf", true
	case "iat":
		return "iat", true
	case "jti":
		return "jti", true
	case "scope":
		return "scope", true
	case "scp":
		return "scp", true
	case "client_id":
		return "client_id", true
	case "azp":
		return "azp", true
	case "auth_time":
		return "auth_time", true
	case "sid":
		return "sid", true
	case "crit":
		return "crit", true
	case "b64":
		return "b64", true
	case "enc":
		return "enc", true
	case "zip":
		return "zip", true
	case "jku":
		return "jku", true
	case "jwk":
		return "jwk", true
	case "x5u":
		return "x5u", true
	case "x5c":
		return "x5c", true
	case "x5t":
		return "x5t", true
	case "cty":
		return "cty", true
	}
	return jsonString(quoted)
}

// jsonString reads a JSON string value; ok is false for anything else.
func jsonString(raw json.RawMessage) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	body := raw[1 : len(raw)-1]
	if !hasEscape(body) {
		return string(body), true
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", false
	}
	return s, true
}

func hasEscape(b []byte) bool {
	for _, c := range b {
		if c == '\\' {
			return true
		}
	}
	return false
}
