package bearer

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/svckit/svc/modules/store"
)

// Store keeps the introspection answers of a verifier built with
// Introspect in s too, shared with the service's other replicas (see the
// store.Introspections contract): Verify looks in its own cache first,
// then in s, then asks the endpoint (one request per token per replica at
// a time, as without s). It wins over the store the gate shares
// (authn.SharedStores; fxsvc.Authn passes the app's, fxredis.Redis, to a
// verifier built without one). Every entry is authenticated, since
// whoever can write s must not be able to authenticate a token: an
// HMAC-SHA256 tag covers the token's hash, the issuer, the audience, the
// entry's expiry and the answer, under a key derived (HKDF-SHA256) from
// the introspection client's shared secret, which never leaves the
// process; an RFC 9701 signed answer is also kept as the JWT itself and
// verified again with the issuer's keys on every read, its `iat` bounding
// its use as IntrospectionTTL does. An entry whose tag or signature does
// not verify, or that is stale, is ignored (logged at most once a minute)
// and the endpoint is asked.
//
// A client with no shared secret (private_key_jwt) has no key to tag
// entries with, and an issuer's signature names no token (a signed answer
// copied under another token's key would pass as that token's): its
// answers stay in each replica's own cache, and Open logs one line that
// says so. A store that does not answer counts as a miss: the token is
// introspected at the endpoint. It matters only with Introspect.
func Store(s store.Introspections) VerifierOption {
	return func(c *verifierConfig) { c.introspectionStore = s }
}

// Shared entries, as stored: a version byte, the answer's kind (plain
// JSON or signed JWT), the expiry in Unix nanoseconds (8 bytes, big
// endian), the HMAC-SHA256 tag, then the answer as the endpoint sent it.
const (
	sharedVersion  = '1'
	sharedPlain    = 'j'
	sharedSigned   = 's'
	sharedHeadSize = 2 + 8 + sha256.Size
	// sharedKeyInfo is HKDF's info: the key it derives serves this
	// purpose only, whatever else is ever derived from the same secret.
	sharedKeyInfo = "svc/authn: HMAC-SHA256 key of the introspection answers replicas share, v1"
	// sharedTagLabel starts every tagged message, for the same reason.
	sharedTagLabel = "svc/authn introspection answer v1"
)

var (
	errSharedShape   = errors.New("shared introspection entry is malformed")
	errSharedTag     = errors.New("shared introspection entry's tag does not verify")
	errSharedIssued  = errors.New("shared signed introspection answer has no iat, or one outside its use")
	errSharedExpired = errors.New("shared introspection entry is stale")
)

// sharedAnswers is the shared half of an introspector's cache.
type sharedAnswers struct {
	in     *introspector
	store  store.Introspections
	warned atomic.Int64 // Unix nanoseconds of the last warning
}

// key derives the tag key; ok is false when the client has no shared
// secret or its secret file cannot be read now (nothing is shared then).
func (s *sharedAnswers) key() ([]byte, bool) {
	k, ok, err := s.in.client.DeriveKey(sharedKeyInfo, sha256.Size)
	if err != nil {
		s.warn("the introspection client's secret cannot be read; answers are not shared meanwhile", err)
		return nil, false
	}
	return k, ok
}

// storeKey names token's entry: a hash of the issuer, the audience and
// the token's own hash, so that verifiers of two issuers sharing a store
// keep apart.
func (s *sharedAnswers) storeKey(token [sha256.Size]byte) string {
	h := sha256.New()
	s.in.v.writeScope(h)
	h.Write(token[:])
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil))
}

// tag is the HMAC of one entry under key.
func (s *sharedAnswers) tag(key []byte, token [sha256.Size]byte, kind byte, until int64, answer []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(sharedTagLabel))
	s.in.v.writeScope(m)
	m.Write(token[:])
	var head [9]byte
	head[0] = kind
	binary.BigEndian.PutUint64(head[1:], uint64(until))
	m.Write(head[:])
	m.Write(answer)
	return m.Sum(nil)
}

// put shares r, the answer judged valid until until. A signed answer is
// shared only with its iat, and no longer than the TTL from it, so that
// every replica reading it finds it within its use.
func (s *sharedAnswers) put(ctx context.Context, token [sha256.Size]byte, r received, until, now time.Time) {
	if r.signed {
		if r.iat == 0 {
			return
		}
		until = earliest(until, time.Unix(r.iat, 0).Add(until.Sub(now)))
	}
	key, ok := s.key()
	if !ok || !now.Before(until) || until.After(lastUnixNano) {
		return
	}
	kind := byte(sharedPlain)
	if r.signed {
		kind = sharedSigned
	}
	u := until.UnixNano()
	entry := make([]byte, 0, sharedHeadSize+len(r.body))
	entry = append(entry, sharedVersion, kind)
	entry = binary.BigEndian.AppendUint64(entry, uint64(u))
	entry = append(entry, s.tag(key, token, kind, u, r.body)...)
	entry = append(entry, r.body...)
	_ = s.store.Set(ctx, s.storeKey(token), entry, until.Sub(now))
}

// get returns the verdict another replica shared for token, when its
// entry authenticates and is fresh at now, with when it goes stale here.
func (s *sharedAnswers) get(ctx context.Context, token [sha256.Size]byte, now time.Time) (Principal, *TokenError, time.Time, bool) {
	key, ok := s.key()
	if !ok {
		return Principal{}, nil, time.Time{}, false
	}
	raw, err := s.store.Get(ctx, s.storeKey(token))
	if err != nil || raw == nil {
		// The store reports its own failures; the endpoint answers.
		return Principal{}, nil, time.Time{}, false
	}
	p, te, until, err := s.open(ctx, key, token, raw, now)
	if err != nil {
		if !errors.Is(err, errSharedExpired) {
			s.warn("a shared introspection answer was ignored; the token is introspected at the endpoint", err)
		}
		return Principal{}, nil, time.Time{}, false
	}
	return p, te, until, true
}

// open authenticates one entry and judges its answer at now, as a fresh
// one is judged.
func (s *sharedAnswers) open(ctx context.Context, key []byte, token [sha256.Size]byte, raw []byte, now time.Time) (Principal, *TokenError, time.Time, error) {
	if len(raw) < sharedHeadSize || raw[0] != sharedVersion || (raw[1] != sharedPlain && raw[1] != sharedSigned) {
		return Principal{}, nil, time.Time{}, errSharedShape
	}
	kind := raw[1]
	u := int64(binary.BigEndian.Uint64(raw[2:10]))
	tag, answer := raw[10:sharedHeadSize], raw[sharedHeadSize:]
	if !hmac.Equal(tag, s.tag(key, token, kind, u, answer)) {
		return Principal{}, nil, time.Time{}, errSharedTag
	}
	until := time.Unix(0, u)
	if !now.Before(until) {
		return Principal{}, nil, time.Time{}, errSharedExpired
	}
	ttl := s.in.ttl
	p, judged, iat, err := s.in.judge(ctx, received{body: answer, signed: kind == sharedSigned}, now)
	var te *TokenError
	switch {
	case errors.As(err, &te):
		ttl = min(inactiveTTL, ttl)
		judged = now.Add(ttl)
	case err != nil:
		return Principal{}, nil, time.Time{}, err
	}
	// However the entry came to be, it is used no longer than a fresh
	// answer would be: at most the TTL from now, and for a signed answer
	// at most the TTL from when the issuer signed it.
	until = earliest(until, judged, now.Add(ttl))
	if kind == sharedSigned {
		issued := time.Unix(iat, 0)
		if iat == 0 || issued.After(now.Add(s.in.v.cfg.leeway)) {
			return Principal{}, nil, time.Time{}, errSharedIssued
		}
		if until = earliest(until, issued.Add(ttl)); !now.Before(until) {
			return Principal{}, nil, time.Time{}, errSharedIssued
		}
	}
	return p, te, until, nil
}

// warn logs a shared entry that was not used, at most once a minute: a
// forged or damaged entry says someone writes the store who should not.
func (s *sharedAnswers) warn(msg string, err error) {
	now := time.Now().UnixNano()
	last := s.warned.Load()
	if last != 0 && now-last < int64(time.Minute) || !s.warned.CompareAndSwap(last, now) {
		return
	}
	s.in.v.cfg.logger.Warn("authn: "+msg, zap.String("issuer", s.in.v.label), zap.String("error", err.Error()))
}

// earliest is the first of some instants.
func earliest(first time.Time, rest ...time.Time) time.Time {
	for _, t := range rest {
		if t.Before(first) {
			first = t
		}
	}
	return first
}

// writeScope writes the verifier's issuer and audience, each with its
// length, so that no two pairs write the same bytes.
func (v *JWTVerifier) writeScope(w interface{ Write([]byte) (int, error) }) {
	for _, s := range []string{v.cfg.issuer, v.cfg.audience} {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(s)))
		w.Write(n[:])
		w.Write([]byte(s))
	}
}

// shareIntrospections gives the verifier the app's shared store
// (fxsvc.Authn's, through the gate) unless [Store] gave it one; without
// Introspect it does nothing.
func (v *JWTVerifier) shareIntrospections(s store.Introspections) {
	if v.intro == nil || s == nil {
		return
	}
	v.intro.shared.CompareAndSwap(nil, &sharedAnswers{in: v.intro, store: s})
}

// openShared says, once at Open, when answers stay in this replica
// although a shared store was given.
func (in *introspector) openShared() {
	s := in.shared.Load()
	if s == nil {
		return
	}
	if _, ok, _ := in.client.DeriveKey(sharedKeyInfo, sha256.Size); !ok {
		in.v.cfg.logger.Info("authn: introspection answers stay in this replica's cache, not shared: the introspection client has no shared secret (it authenticates with private_key_jwt) to authenticate the entries other replicas would read",
			zap.String("issuer", in.v.label))
	}
}
