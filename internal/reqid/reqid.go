// Package reqid makes and accepts request IDs, for svc's telemetry
// wrapper, which gives every request one; package requestid reads them
// back (requestid.From) and names their header and log field.
package reqid

import (
	"context"
	"math/rand/v2"
)

// MaxLength is the longest ID accepted from a caller; a longer one is
// replaced, so a caller cannot fill logs through it.
const MaxLength = 128

// Key is the context key the ID is stored under, as a *string pointing at
// it: a context hands a pointer out without an allocation, which a string
// would need. The telemetry wrapper's context answers it among its other
// values.
type Key struct{}

// With returns ctx carrying id.
func With(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, Key{}, &id)
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
