package authn

import (
	"encoding/binary"
	"encoding/json"
	"math/bits"
)

// JSON reading for the pre-parser and the claims. One pass checks a
// segment's grammar (exactly what encoding/json's Valid accepts) and cuts
// its top-level members out, without reflection and mostly without copies;
// encoding/json itself still unescapes the rare escaped string. FuzzSplitMembers
// holds the pass to json.Valid on arbitrary input.

// maxDepth is encoding/json's nesting limit: a text nested deeper is
// invalid there, so it is here too.
const maxDepth = 10000

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

// scanString returns the index just past the string starting at raw[i],
// and false when there is none: a control character, an unknown escape or
// a \u without four hex digits is not a JSON string.
func scanString(raw []byte, i int) (int, bool) {
	if i >= len(raw) || raw[i] != '"' {
		return 0, false
	}
	for i++; ; i++ {
		i = skipPlain(raw, i)
		if i >= len(raw) {
			return 0, false
		}
		switch raw[i] {
		case '"':
			return i + 1, true
		case '\\':
			i++
			if i >= len(raw) {
				return 0, false
			}
			switch raw[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(raw) || !isHex(raw[i+1]) || !isHex(raw[i+2]) || !isHex(raw[i+3]) || !isHex(raw[i+4]) {
					return 0, false
				}
				i += 4
			default:
				return 0, false
			}
		default: // a control character
			return 0, false
		}
	}
}

// Eight bytes at a time, as one uint64: every byte 0x01, and the high bit
// of every byte.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// skipPlain returns the index of the first byte at or after i that ends
// plain string content: '"', '\\' or a control character (len(raw) when
// there is none). A token's strings are mostly runs of plain ASCII, so it
// tests eight bytes at a time with the usual word-at-a-time tests:
// (y-ones)&^y&highs flags the zero bytes of y, and (x-0x20*ones)&^x&highs
// the bytes of x below 0x20. Either may also flag bytes above its first
// hit (a borrow runs upwards), never below it, so the lowest flag of the
// three is the first byte that ends the run.
func skipPlain(raw []byte, i int) int {
	for ; i+8 <= len(raw); i += 8 {
		x := binary.LittleEndian.Uint64(raw[i:])
		quote := x ^ '"'*ones
		backslash := x ^ '\\'*ones
		if m := (quote-ones)&^quote&highs | (backslash-ones)&^backslash&highs | (x-0x20*ones)&^x&highs; m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for ; i < len(raw); i++ {
		if c := raw[i]; c == '"' || c == '\\' || c < 0x20 {
			return i
		}
	}
	return i
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// scanColon steps over the ':' after a member name, and the space around
// it, to where the value starts.
func scanColon(raw []byte, i int) (int, bool) {
	i = skipSpace(raw, i)
	if i >= len(raw) || raw[i] != ':' {
		return 0, false
	}
	return skipSpace(raw, i+1), true
}

// scanValue returns the index just past the value starting at raw[i], and
// false when no valid JSON value starts there. It walks nested objects and
// arrays without recursion, keeping the open brackets in a stack that
// lives on the goroutine's stack unless the value nests deeper than 64.
func scanValue(raw []byte, i int) (int, bool) {
	var local [64]byte
	open := local[:0] // '{' or '[' for each container around i
	var ok bool
	for {
		// i is where a value starts.
		if i >= len(raw) {
			return 0, false
		}
		switch c := raw[i]; c {
		case '"':
			if i, ok = scanString(raw, i); !ok {
				return 0, false
			}
		case '{', '[':
			// The member being scanned is inside the top-level object:
			// with it, the depth may reach maxDepth and no more.
			if len(open)+1 >= maxDepth {
				return 0, false
			}
			open = append(open, c)
			i = skipSpace(raw, i+1)
			if i < len(raw) && raw[i] == closer(c) {
				open = open[:len(open)-1]
				i++
				break
			}
			if c == '{' {
				if i, ok = scanName(raw, i); !ok {
					return 0, false
				}
			}
			continue
		case 't':
			if i, ok = scanLiteral(raw, i, "true"); !ok {
				return 0, false
			}
		case 'f':
			if i, ok = scanLiteral(raw, i, "false"); !ok {
				return 0, false
			}
		case 'n':
			if i, ok = scanLiteral(raw, i, "null"); !ok {
				return 0, false
			}
		default:
			if i, ok = scanNumber(raw, i); !ok {
				return 0, false
			}
		}
		// A value ended at i: close the containers it ends, or step past a
		// comma to the next element.
		for {
			if len(open) == 0 {
				return i, true
			}
			i = skipSpace(raw, i)
			if i >= len(raw) {
				return 0, false
			}
			top := open[len(open)-1]
			if raw[i] == closer(top) {
				open = open[:len(open)-1]
				i++
				continue
			}
			if raw[i] != ',' {
				return 0, false
			}
			i = skipSpace(raw, i+1)
			if top == '{' {
				if i, ok = scanName(raw, i); !ok {
					return 0, false
				}
			}
			break
		}
	}
}

func closer(open byte) byte {
	if open == '{' {
		return '}'
	}
	return ']'
}

// scanName steps over a member name and its colon, to where the value
// starts.
func scanName(raw []byte, i int) (int, bool) {
	end, ok := scanString(raw, i)
	if !ok {
		return 0, false
	}
	return scanColon(raw, end)
}

// scanLiteral steps over true, false or null. What follows is checked by
// the caller, so "truex" is refused there.
func scanLiteral(raw []byte, i int, lit string) (int, bool) {
	if len(raw)-i < len(lit) || string(raw[i:i+len(lit)]) != lit {
		return 0, false
	}
	return i + len(lit), true
}

// scanNumber steps over a JSON number: an optional minus, 0 or a digit
// string not starting with 0, an optional fraction, an optional exponent.
func scanNumber(raw []byte, i int) (int, bool) {
	if raw[i] == '-' {
		i++
	}
	switch {
	case i < len(raw) && raw[i] == '0':
		i++
	case i < len(raw) && '1' <= raw[i] && raw[i] <= '9':
		i = skipDigits(raw, i+1)
	default:
		return 0, false
	}
	if i < len(raw) && raw[i] == '.' {
		j := skipDigits(raw, i+1)
		if j == i+1 {
			return 0, false
		}
		i = j
	}
	if i < len(raw) && (raw[i] == 'e' || raw[i] == 'E') {
		i++
		if i < len(raw) && (raw[i] == '+' || raw[i] == '-') {
			i++
		}
		j := skipDigits(raw, i)
		if j == i {
			return 0, false
		}
		i = j
	}
	return i, true
}

func skipDigits(raw []byte, i int) int {
	for i < len(raw) && '0' <= raw[i] && raw[i] <= '9' {
		i++
	}
	return i
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
