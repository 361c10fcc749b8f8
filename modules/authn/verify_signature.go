package authn

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/sha512"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"
)

// The signature step checks the token's signature with the keys the key
// step found, under the budget of fresh verifications (below): at most
// MaxConcurrentVerifications run at once, the others wait their turn.
//
// The signature is checked with the standard library's primitives over the
// token's own bytes rather than through go-jose's JWS object, for three
// reasons: RSA-PSS must pin the salt length to the hash length (RFC 7518
// §3.5), which go-jose does not; the signing input must be the segments as
// sent, not a re-encoding of them (non-canonical base64 must not verify);
// and a fresh verification should cost the signature and little else.
// go-jose still parses and validates every JWK.

var errSignature = errors.New("signature does not verify")

// checkSignature tries keys within the verification budget and returns
// the one that verifies s; a *TokenError with ReasonSignature when none
// does, or an error wrapping ErrBusy when no turn came.
func (v *JWTVerifier) checkSignature(ctx context.Context, a alg, keys []*heldKey, s *segments) (*heldKey, error) {
	if err := v.budget.acquire(ctx); err != nil {
		return nil, err
	}
	defer v.budget.release()
	for _, k := range keys {
		if verifySignature(a, k, s.signingInput, s.sig) {
			return k, nil
		}
	}
	return nil, refuse(ReasonSignature, errSignature)
}

// verifySignature checks sig over signingInput with key k, which must fit a.
func verifySignature(a alg, k *heldKey, signingInput string, sig []byte) bool {
	info := &algs[a]
	// One copy of the signing input for the hash or ed25519 to read: a
	// read-only view of the string's bytes would save it, at about 0.2 % of
	// a verification, but needs package unsafe, which security code avoids.
	input := []byte(signingInput)
	if info.family == familyEd25519 {
		return len(sig) == ed25519.SignatureSize && ed25519.Verify(k.ed, input, sig)
	}
	// One scratch value for the digest and the DER signature: whatever of
	// it escapes into crypto/ecdsa or crypto/rsa is one allocation.
	var scratch struct {
		digest [64]byte
		der    [maxECDSADER]byte
	}
	digest := hashInput(&scratch.digest, info.hash, input)
	switch info.family {
	case familyRSA:
		if info.pss {
			return rsa.VerifyPSS(k.rsa, info.hash, digest, sig,
				&rsa.PSSOptions{SaltLength: rsa.PSSSaltLengthEqualsHash, Hash: info.hash}) == nil
		}
		return rsa.VerifyPKCS1v15(k.rsa, info.hash, digest, sig) == nil
	case familyEC:
		// JWS ECDSA signatures are R and S as fixed-size big-endian halves
		// (RFC 7518 §3.4), not ASN.1.
		size := (k.ec.Curve.Params().BitSize + 7) / 8
		if len(sig) != 2*size {
			return false
		}
		der, ok := appendECDSADER(scratch.der[:0], sig[:size], sig[size:])
		return ok && ecdsa.VerifyASN1(k.ec, digest, der)
	}
	return false
}

// maxECDSADER is the longest DER signature appendECDSADER writes: a
// SEQUENCE with a two-byte length around two INTEGERs of up to 66 bytes
// (P-521) plus a sign byte each.
const maxECDSADER = 3 + 2*(2+1+66)

// appendECDSADER appends the ASN.1 DER form of the ECDSA signature (r, s),
// given as unsigned big-endian bytes, to dst. It is the encoding
// ecdsa.Verify makes of its big.Int arguments before it calls
// ecdsa.VerifyASN1, written here without big.Int or a cryptobyte.Builder,
// which cost a fresh verification about ten allocations. ok is false when
// r or s is zero (ecdsa.Verify refuses those) or longer than a P-521
// scalar.
func appendECDSADER(dst, r, s []byte) (der []byte, ok bool) {
	r, s = trimLeadingZeros(r), trimLeadingZeros(s)
	if len(r) == 0 || len(s) == 0 || len(r) > 66 || len(s) > 66 {
		return nil, false
	}
	body := derIntLen(r) + derIntLen(s)
	dst = append(dst, 0x30) // SEQUENCE
	if body >= 0x80 {
		dst = append(dst, 0x81) // long form: one length byte follows
	}
	dst = append(dst, byte(body))
	return appendDERInt(appendDERInt(dst, r), s), true
}

func trimLeadingZeros(b []byte) []byte {
	for len(b) > 0 && b[0] == 0 {
		b = b[1:]
	}
	return b
}

// derIntLen is the encoded length of a positive INTEGER: tag, length, a
// zero byte when the top bit is set (or the value would read as
// negative), then the value.
func derIntLen(v []byte) int {
	if v[0]&0x80 != 0 {
		return 3 + len(v)
	}
	return 2 + len(v)
}

func appendDERInt(dst, v []byte) []byte {
	if v[0]&0x80 != 0 {
		dst = append(dst, 0x02, byte(len(v)+1), 0)
	} else {
		dst = append(dst, 0x02, byte(len(v)))
	}
	return append(dst, v...)
}

// hashInput digests the signing input with the algorithm's hash, without
// the allocation of a hash.Hash.
func hashInput(buf *[64]byte, h crypto.Hash, in []byte) []byte {
	switch h {
	case crypto.SHA256:
		sum := sha256.Sum256(in)
		return append(buf[:0], sum[:]...)
	case crypto.SHA384:
		sum := sha512.Sum384(in)
		return append(buf[:0], sum[:]...)
	default:
		sum := sha512.Sum512(in)
		return append(buf[:0], sum[:]...)
	}
}

// budgetKeyer is what the gate puts in a Verify's context: the key a
// verification that must wait is queued under (the client address). It
// is asked only then, so a cached or uncontended verification never works
// the address out.
type budgetKeyer interface{ budgetKey() string }

type budgetKeyCtxKey struct{}

// withBudgetKey returns ctx carrying k for the verification budget.
func withBudgetKey(ctx context.Context, k budgetKeyer) context.Context {
	return context.WithValue(ctx, budgetKeyCtxKey{}, k)
}

// budgetKeyOf is the fairness key ctx carries; "" (one queue shared by
// every caller) when Verify was called without the gate.
func budgetKeyOf(ctx context.Context) string {
	if k, ok := ctx.Value(budgetKeyCtxKey{}).(budgetKeyer); ok {
		return k.budgetKey()
	}
	return ""
}

// verifyBudget is a counting semaphore whose waiters queue by key and are
// served round-robin between keys, first come first served within one.
// A slot freed while someone waits passes straight to the next waiter.
type verifyBudget struct {
	size int
	wait time.Duration

	mu     sync.Mutex
	free   int // slots nobody holds; never above 0 while live waiters queue
	live   int // waiters neither served nor gone
	queues map[string]*budgetQueue
	turns  []*budgetQueue // queues with waiters, in the order they are served
}

type budgetQueue struct {
	key     string
	waiters []*budgetWaiter
}

type budgetWaiter struct {
	ready chan struct{} // closed when a slot is handed over
	gone  bool          // gave up waiting (under mu): skipped when served
}

func newVerifyBudget(n int, wait time.Duration) *verifyBudget {
	if n < 1 {
		n = runtime.GOMAXPROCS(0)
	}
	if wait <= 0 {
		wait = defaultVerificationWait
	}
	return &verifyBudget{size: n, wait: wait, free: n, queues: map[string]*budgetQueue{}}
}

// acquire takes a slot, waiting for one in the queue of ctx's fairness
// key for at most the budget's wait; the caller must release a slot it
// got. It returns an error wrapping ErrBusy when the wait ends or ctx
// does first.
func (b *verifyBudget) acquire(ctx context.Context) error {
	b.mu.Lock()
	if b.free > 0 {
		b.free--
		b.mu.Unlock()
		return nil
	}
	b.mu.Unlock()
	key := budgetKeyOf(ctx) // outside the lock: the gate works the address out here
	b.mu.Lock()
	if b.free > 0 {
		b.free--
		b.mu.Unlock()
		return nil
	}
	w := b.enqueue(key)
	b.mu.Unlock()

	timer := time.NewTimer(b.wait)
	defer timer.Stop()
	var cause error
	select {
	case <-w.ready:
		return nil
	case <-timer.C:
	case <-ctx.Done():
		cause = ctx.Err()
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	select {
	case <-w.ready:
		// Served as the wait ended: the slot is ours.
		return nil
	default:
	}
	w.gone = true
	b.live--
	if cause != nil {
		return fmt.Errorf("%w: the request ended while waiting: %w", ErrBusy, cause)
	}
	return fmt.Errorf("%w: waited %s for one of %d slots (raise authn.VerificationWait, or authn.MaxConcurrentVerifications if the host has idle cores)",
		ErrBusy, b.wait, b.size)
}

// enqueue adds a waiter to key's queue, which joins the turns when it is
// new. b.mu must be held.
func (b *verifyBudget) enqueue(key string) *budgetWaiter {
	w := &budgetWaiter{ready: make(chan struct{})}
	q := b.queues[key]
	if q == nil {
		q = &budgetQueue{key: key}
		b.queues[key] = q
		b.turns = append(b.turns, q)
	}
	q.waiters = append(q.waiters, w)
	b.live++
	return w
}

// release gives a slot back: to the first live waiter of the queue whose
// turn it is (that queue then goes to the back of the turns), or to the
// pool when nobody waits.
func (b *verifyBudget) release() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for len(b.turns) > 0 {
		q := b.turns[0]
		b.turns[0] = nil
		b.turns = b.turns[1:]
		w := q.waiters[0]
		q.waiters[0] = nil
		q.waiters = q.waiters[1:]
		if len(q.waiters) == 0 {
			delete(b.queues, q.key)
		} else {
			b.turns = append(b.turns, q)
		}
		if w.gone {
			continue
		}
		b.live--
		close(w.ready)
		return
	}
	b.free++
}

// held counts the slots taken, for tests.
func (b *verifyBudget) held() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.size - b.free
}

// waiting counts the live waiters, for tests.
func (b *verifyBudget) waiting() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.live
}
