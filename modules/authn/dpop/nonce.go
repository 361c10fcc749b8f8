package dpop

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"time"
)

// minNonceSecret is the shortest secret NewNonceSource takes.
const minNonceSecret = 32

// NonceSource issues DPoP-Nonce values (RFC 9449 §8) that every replica
// given the same secret issues and accepts alike, with no shared state:
// a nonce is HMAC-SHA256 of the secret over the number of the current
// time step. It changes every step, and a proof carrying the current or
// the previous step's nonce is accepted, so a nonce lives between one and
// two steps. Replicas' clocks must agree to well within a step.
type NonceSource struct {
	mac  []byte
	step time.Duration
	now  func() time.Time
}

// NewNonceSource returns a NonceSource. It refuses a secret shorter than
// 32 bytes and a step under a second.
func NewNonceSource(secret []byte, step time.Duration) (*NonceSource, error) {
	if len(secret) < minNonceSecret {
		return nil, errors.New("dpop: NewNonceSource: the secret must be at least 32 random bytes, the same on every replica")
	}
	if step < time.Second {
		return nil, errors.New("dpop: NewNonceSource: the step must be at least 1s (a few minutes is usual)")
	}
	return &NonceSource{mac: append([]byte(nil), secret...), step: step, now: time.Now}, nil
}

// Current is the nonce to send in a DPoP-Nonce header now.
func (n *NonceSource) Current() string { return n.current(n.now()) }

func (n *NonceSource) current(now time.Time) string { return n.at(n.window(now)) }

func (n *NonceSource) window(now time.Time) int64 { return now.UnixNano() / int64(n.step) }

func (n *NonceSource) at(w int64) string {
	h := hmac.New(sha256.New, n.mac)
	h.Write([]byte("svc dpop nonce\x00"))
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(w))
	h.Write(b[:])
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil)[:18])
}

// check reports whether s is the nonce of now's step or the one before
// (valid), and, for a valid one of the step before, the current nonce the
// client should move on to ("" for a proof with the current one).
func (n *NonceSource) check(s string, now time.Time) (valid bool, next string) {
	if len(s) != 24 {
		return false, ""
	}
	w := n.window(now)
	current := n.at(w)
	if subtle.ConstantTimeCompare([]byte(s), []byte(current)) == 1 {
		return true, ""
	}
	if subtle.ConstantTimeCompare([]byte(s), []byte(n.at(w-1))) == 1 {
		return true, current
	}
	return false, ""
}
