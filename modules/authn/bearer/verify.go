package bearer

import (
	"context"
	"time"
)

// Verify checks token and returns the caller it names. See JWTVerifier for
// the checks and Verifier for the errors. A token naming an unknown kid
// waits for at most one key refresh, and a fresh verification for at most
// VerificationWait for its turn, both bounded by ctx.
//
// It calls each step once, in order, each in its own file; a step refuses
// with a *TokenError whose Reason and Err name what differed:
//
//	cache      verify_cache.go      a token verified before, until its exp (looked up first, stored last)
//	split      verify_split.go      size, three segments, canonical base64url, UTF-8
//	header     verify_header.go     one JSON object, no crit or b64, alg on the allow-list, kid
//	key        verify_key.go        the keys kid names (or that fit alg), at most four tries
//	signature  verify_signature.go  under the budget of fresh verifications
//	claims     verify_claims.go     the payload, once signed: typed claims, then iss, aud, exp, nbf, iat
//
// Followed from here, a valid token not yet cached visits eight files, in
// this order: this one, verify_cache.go, verify_split.go,
// verify_header.go, internal/jsonscan/jsonscan.go (one call: the header's
// members, strings already unescaped), verify_key.go, verify_signature.go
// and verify_claims.go. It enters a file it had left twice: jsonscan.go
// for the payload's members (one call), and verify_cache.go to store the
// result; an aud or scp array adds a third, jsonscan.go to read it. Each
// step is called from here and returns here, and calls nothing outside its
// file but those. Off that path: a kid the set does not hold asks the
// loader (keys.go) for one refresh, and keys not yet loaded answer with
// the loader's error.
func (v *JWTVerifier) Verify(ctx context.Context, token string) (Principal, error) {
	if v.err != nil {
		return Principal{}, v.err
	}
	now := v.cfg.clock()
	if p, ok := v.cache.get(token, now); ok {
		return p, nil
	}
	return v.verifyAfterCache(ctx, token, now, v.cache)
}

// verifyAfterCache is Verify after a cache miss: an issuer template hands
// the token to its tenant's verifier (tenants.go), any other verifier
// runs the steps. An opaque token to a verifier without Introspect is
// refused first, saying so (introspect_token.go).
func (v *JWTVerifier) verifyAfterCache(ctx context.Context, token string, now time.Time, cache *verifyCache) (Principal, error) {
	if v.intro == nil {
		if te := notIntrospected(token, v.cfg.maxTokenSize); te != nil {
			return Principal{}, te
		}
	}
	if v.tenants != nil {
		return v.tenants.verify(ctx, token, v.cfg.maxTokenSize, now, cache)
	}
	return v.verifyFresh(ctx, token, now, cache)
}

// verifyFresh is Verify after a cache miss: the steps, then the result
// stored in cache (the verifier's own, or the shared one of Issuers).
func (v *JWTVerifier) verifyFresh(ctx context.Context, token string, now time.Time, cache *verifyCache) (Principal, error) {
	if v.intro != nil && !isJWS(token) {
		// An opaque token (introspect.go), cached there by its hash.
		return v.intro.verify(ctx, token, now)
	}
	s, terr := split(token, v.cfg.maxTokenSize)
	if terr != nil {
		return Principal{}, terr
	}
	h, terr := readHeader(&s, v.algs, v.cfg.tokenTypes)
	if terr != nil {
		return Principal{}, terr
	}
	var buf [maxKidlessTries]*heldKey
	keys, err := v.keysFor(ctx, h, buf[:0])
	if err != nil {
		return Principal{}, err
	}
	key, err := v.checkSignature(ctx, h.alg, keys, &s)
	if err != nil {
		return Principal{}, err
	}
	p, until, err := v.readClaims(s.payload, now)
	if err != nil {
		return Principal{}, err
	}
	cache.put(token, p, until, key, now)
	return p, nil
}
