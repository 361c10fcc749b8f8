// Package requestid gives every request an ID: the caller's X-Request-ID
// when it is well-formed, else one made here. The ID is echoed on the
// response and carried in the request context, where the access log, the
// security records, the 500 log line and the server span read it.
// svc's outermost wrapper (modules/telemetry, which fxsvc.Serve always
// installs) gives the IDs; this package holds their rules.
//
//	id := requestid.From(r.Context())
package requestid

import (
	"context"
	"math/rand/v2"
)

// Header is the request and response header carrying the ID.
const Header = "X-Request-ID"

// LogField is the log record field carrying the ID: the Elastic Common
// Schema's http.request.id (OpenTelemetry names none). The access log, the
// security records and the 500 log lines use it.
const LogField = "http.request.id"

// SpanAttribute is the server span's attribute carrying the ID, the same
// name as the log field.
const SpanAttribute = LogField

// MaxLength is the longest ID accepted from a caller; a longer one is
// replaced, so a caller cannot fill logs through it.
const MaxLength = 128

type key struct{}

// With returns ctx carrying id.
func With(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, key{}, &id)
}

// ContextKey is the key [With] stores the ID under, for a context type
// that carries the ID among other values in one allocation (the telemetry
// wrapper's): it must answer this key with a *string pointing at the ID,
// which, unlike a string, a context hands out without an allocation.
func ContextKey() any { return key{} }

// From returns the request's ID, "" when no telemetry wrapper gave one.
func From(ctx context.Context) string {
	if id, _ := ctx.Value(key{}).(*string); id != nil {
		return *id
	}
	return ""
}

// New returns a random ID: 128 bits as 32 hex digits.
//
// A correlation ID needs uniqueness, not secrecy: the bits come from
// math/rand/v2's generator (ChaCha8 per thread, seeded by the runtime from
// the operating system), which costs a few nanoseconds where a crypto/rand
// read cost a system call's worth on every request. Nothing may use an ID
// as a secret or a nonce.
func New() string {
	var id [32]byte
	putHex(&id, 0, rand.Uint64())
	putHex(&id, 16, rand.Uint64())
	return string(id[:])
}

// putHex writes v as 16 hex digits into id from at, a byte (two digits)
// at a time: New runs on every request, and encoding/hex's way, through
// a byte slice it then reads back, cost a third of it.
func putHex(id *[32]byte, at int, v uint64) {
	for i := at + 14; i >= at; i -= 2 {
		p := &hexPairs[byte(v)]
		id[i], id[i+1] = p[0], p[1]
		v >>= 8
	}
}

// hexPairs holds the two lowercase hex digits of every byte value.
var hexPairs = func() (t [256][2]byte) {
	const digits = "0123456789abcdef"
	for b := range t {
		t[b] = [2]byte{digits[b>>4], digits[b&15]}
	}
	return t
}()

// Valid reports whether id may be taken from a caller: 1 to MaxLength
// characters, each a letter, a digit or one of - _ . : / + = (enough for
// UUIDs, ULIDs, base64 and the IDs proxies make; nothing a log or a header
// could misread).
func Valid(id string) bool {
	if id == "" || len(id) > MaxLength {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case c == '-', c == '_', c == '.', c == ':', c == '/', c == '+', c == '=':
		default:
			return false
		}
	}
	return true
}
