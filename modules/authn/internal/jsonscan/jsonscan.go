// Package jsonscan reads the JSON of a JWT's header and payload for the
// verifier: one pass checks a segment's grammar (exactly what
// encoding/json's Valid accepts) and cuts its top-level members out,
// without reflection and mostly without copies; encoding/json itself still
// unescapes the rare escaped string. FuzzMembers holds the pass to
// json.Valid on arbitrary input. It is one file because it is one grammar:
// the verifier trusts nothing about JSON but what this file says.
//
// # Why not encoding/json
//
// The verifier must refuse duplicate member names (a second "alg" or "exp"
// hiding behind the first), which encoding/json accepts, keeping the last,
// so with it each segment would take a second scan; and a fresh ES256
// verification is held to 1.1 times the bare signature check, where the
// JSON of header and payload is most of what is left. Measured with
// BenchmarkMembersPaired (a 9-claim RFC 9068 payload read into a map of
// raw values, alternated in batches on a loaded 2-core machine, Go 1.26,
// median of 5 runs; encoding/json doing less, as it checks no duplicates):
//
//	encoding/json                           4.6× (3.6–5.0), 36 allocations against 3
//	encoding/json, GOEXPERIMENT=jsonv2      2.7× (2.3–4.0), 17 allocations
//	encoding/json/v2, GOEXPERIMENT=jsonv2   2.7× (2.0–3.1), 17 allocations (refuses duplicates)
//
// About 1.5 µs here against 7 µs with encoding/json, of a fresh
// verification's 75 µs: encoding/json would take the verifier past its
// goal. encoding/json/v2, which also refuses duplicates, is the candidate
// to replace this package once it leaves GOEXPERIMENT.
package jsonscan

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"math/bits"
)

// ErrNotObject is the refusal of a text that is not one JSON object.
var ErrNotObject = errors.New("segment is not a single JSON object")

// Member is one top-level member of a JSON object.
type Member struct {
	Name  string
	Value []byte // the value as written, aliasing the text
	// Text is the value unescaped when it is a string (IsText is then
	// true): read in the same pass, so a step reads its strings with one
	// call here.
	Text   string
	IsText bool
}

// Members checks that raw is one JSON text (RFC 8259, as json.Valid
// has it) holding an object, and appends its top-level members to buf, in
// order, duplicates included; the values alias raw, and a string value is
// unescaped into Text. A Text equal to one of known is that string itself,
// so the values a verifier expects (its issuer and audience, the algorithm
// names) allocate nothing. raw must be valid UTF-8 (json.Valid does not
// check it; the verifier does, first). Any departure from the grammar is
// ErrNotObject, as is a valid text that is not an object.
func Members(raw []byte, buf []Member, known []string) ([]Member, error) {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return nil, ErrNotObject
	}
	members := buf
	i = skipSpace(raw, i+1)
	if i < len(raw) && raw[i] == '}' {
		i++
	} else {
		for {
			nameEnd, ok := scanString(raw, i)
			if !ok {
				return nil, ErrNotObject
			}
			quoted := raw[i:nameEnd]
			if i, ok = scanColon(raw, nameEnd); !ok {
				return nil, ErrNotObject
			}
			end, ok := scanValue(raw, i)
			if !ok {
				return nil, ErrNotObject
			}
			name, ok := memberName(quoted)
			if !ok {
				return nil, ErrNotObject
			}
			m := Member{Name: name, Value: raw[i:end:end]}
			if raw[i] == '"' {
				if m.Text, ok = text(m.Value, known); !ok {
					return nil, ErrNotObject
				}
				m.IsText = true
			}
			members = append(members, m)
			i = skipSpace(raw, end)
			if i >= len(raw) {
				return nil, ErrNotObject
			}
			if raw[i] == '}' {
				i++
				break
			}
			if raw[i] != ',' {
				return nil, ErrNotObject
			}
			i = skipSpace(raw, i+1)
		}
	}
	if skipSpace(raw, i) != len(raw) {
		return nil, ErrNotObject
	}
	return members, nil
}

// text reads a JSON string value, returning the one of known it equals
// when it is written without escapes; ok is false for anything else.
func text(raw []byte, known []string) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	body := raw[1 : len(raw)-1]
	if !hasEscape(body) {
		for _, k := range known {
			if string(body) == k {
				return k, true
			}
		}
		return string(body), true
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", false
	}
	return s, true
}

// StringArray reads a JSON array whose elements are all strings; ok is
// false for anything else, an array holding a null or a number included.
func StringArray(v []byte) ([]string, bool) {
	i := skipSpace(v, 0)
	if i >= len(v) || v[i] != '[' {
		return nil, false
	}
	list := []string{}
	i = skipSpace(v, i+1)
	if i < len(v) && v[i] == ']' {
		return endArray(v, i, list)
	}
	for {
		end, ok := scanString(v, i)
		if !ok {
			return nil, false
		}
		s, ok := text(v[i:end], nil)
		if !ok {
			return nil, false
		}
		list = append(list, s)
		i = skipSpace(v, end)
		if i >= len(v) {
			return nil, false
		}
		if v[i] == ']' {
			return endArray(v, i, list)
		}
		if v[i] != ',' {
			return nil, false
		}
		i = skipSpace(v, i+1)
	}
}

// endArray hands back list when the ']' at v[i] ends v (but for space).
func endArray(v []byte, i int, list []string) ([]string, bool) {
	if skipSpace(v, i+1) != len(v) {
		return nil, false
	}
	return list, true
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
	return text(quoted, nil)
}

func hasEscape(b []byte) bool {
	for _, c := range b {
		if c == '\\' {
			return true
		}
	}
	return false
}

// The JSON grammar (RFC 8259) as encoding/json's Valid has it, one value
// at a time, for Members: each scan returns the index just past what it
// read and false on the first byte the grammar does not allow. Input is
// valid UTF-8 already, so a byte over 0x7f is plain inside a string and an
// error anywhere else.

// maxDepth is encoding/json's nesting limit: a text nested deeper is
// invalid there, so it is here too.
const maxDepth = 10000

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
