package authn

import (
	"encoding/binary"
	"math/bits"
)

// The JSON grammar (RFC 8259) as encoding/json's Valid has it, one value
// at a time, for splitMembers: each scan returns the index just past what
// it read and false on the first byte the grammar does not allow. Input is
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
