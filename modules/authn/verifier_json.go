package authn

import "encoding/json"

// JSON reading for the pre-parser and the claims: encoding/json validates
// (json.Valid), and the helpers below only cut an already-valid text into
// members and read strings, without reflection and mostly without copies.

// member is one top-level member of a JSON object.
type member struct {
	name  string
	value json.RawMessage
}

// splitObject returns the top-level members of a JSON text that json.Valid
// accepted as a map. It refuses a text that is not an object, and
// duplicate names (encoding/json would keep the last, so a second "alg" or
// "exp" could hide behind the first); names are compared after unescaping.
func splitObject(raw []byte) (map[string]json.RawMessage, error) {
	var buf [16]member
	members, err := splitMembers(raw, buf[:0])
	if err != nil {
		return nil, err
	}
	obj := make(map[string]json.RawMessage, len(members))
	for _, m := range members {
		if _, dup := obj[m.name]; dup {
			return nil, errDuplicate
		}
		obj[m.name] = m.value
	}
	return obj, nil
}

// splitMembers appends to buf the top-level members of a JSON text that
// json.Valid accepted, in order, duplicates included. The values alias raw.
func splitMembers(raw []byte, buf []member) ([]member, error) {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return nil, errNotObject
	}
	members := buf
	i = skipSpace(raw, i+1)
	if raw[i] == '}' {
		return members, nil
	}
	for {
		end := skipString(raw, i)
		name, ok := memberName(raw[i:end])
		if !ok {
			return nil, errNotObject
		}
		i = skipSpace(raw, end)
		i = skipSpace(raw, i+1) // past ':'
		vend := skipValue(raw, i)
		members = append(members, member{name: name, value: raw[i:vend:vend]})
		i = skipSpace(raw, vend)
		if raw[i] == '}' {
			return members, nil
		}
		i = skipSpace(raw, i+1) // past ','
	}
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

func skipSpace(raw []byte, i int) int {
	for i < len(raw) {
		switch raw[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// skipString returns the index just past the string starting at raw[i].
func skipString(raw []byte, i int) int {
	for i++; i < len(raw); i++ {
		switch raw[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return i
}

// skipValue returns the index just past the value starting at raw[i].
func skipValue(raw []byte, i int) int {
	switch raw[i] {
	case '"':
		return skipString(raw, i)
	case '{', '[':
		depth := 0
		for i < len(raw) {
			switch raw[i] {
			case '"':
				i = skipString(raw, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	default: // number, true, false, null
		for i < len(raw) {
			switch raw[i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return i
			}
			i++
		}
		return i
	}
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
