package bearer

import (
	"context"
	"errors"
	"fmt"
)

// The key step finds the keys a token may be verified with: those its kid
// names in the current key set, or without a kid those whose type fits its
// alg, within the budget of tries. A kid the set does not hold waits for
// one refresh of a remote set (the loader in keys.go), bounded by ctx.

var (
	errUnknownKey = errors.New("no key with the token's kid")
	errKeyAlg     = errors.New("the key the kid names does not fit alg")
)

// keysFor returns the keys to try for h, appended to buf; an error
// wrapping ErrKeysUnavailable before the first load, or a *TokenError
// with ReasonUnknownKey or ReasonAlgorithm when no key fits.
func (v *JWTVerifier) keysFor(ctx context.Context, h header, buf []*heldKey) ([]*heldKey, error) {
	set := v.set.Load()
	if set == nil {
		return nil, v.keys.unavailable()
	}
	keys, reason := set.candidates(h.kid, h.alg, buf)
	if reason == ReasonUnknownKey {
		if fresh := v.keys.refresh(ctx, set); fresh != set && fresh != nil {
			keys, reason = fresh.candidates(h.kid, h.alg, buf)
		}
	}
	switch reason {
	case ReasonUnknownKey:
		return nil, refuse(reason, fmt.Errorf("%w: kid %s, alg %s", errUnknownKey, quoteSetting(h.kid), algs[h.alg].name))
	case ReasonAlgorithm:
		return nil, refuse(reason, fmt.Errorf("%w: kid %s, alg %s", errKeyAlg, quoteSetting(h.kid), algs[h.alg].name))
	}
	return keys, nil
}

// candidates returns the keys to try for a token with kid and algorithm a:
// the keys the kid names, or for a token without a kid (or with a kid that
// is no held key's thumbprint) every key whose type fits, in the set's
// order. Either way at most maxKidlessTries keys, of which at most one
// expensive: the first in the set's order (the JWKS document's, or the
// order given to KeySet). A forged token then costs at most one expensive
// verification whatever the key set holds. reason is set when there are
// none: ReasonUnknownKey when the kid is not in the set (a refresh may
// help), ReasonAlgorithm when the key the kid names does not fit the
// algorithm (alg confusion).
func (s *keySet) candidates(kid string, a alg, out []*heldKey) ([]*heldKey, Reason) {
	if kid != "" {
		named := s.byID[kid]
		out = appendTries(out, named, a)
		switch {
		case len(out) > 0:
			return out, ""
		case len(named) > 0:
			return nil, ReasonAlgorithm
		case !s.held:
			return nil, ReasonUnknownKey
		}
		// Held keys carry no provider kid: fall through and try by type.
	}
	out = appendTries(out, s.keys, a)
	if len(out) > 0 {
		return out, ""
	}
	if s.held {
		// Held keys never rotate: no key of the algorithm's type is a
		// mismatch, not a missing key.
		return nil, ReasonAlgorithm
	}
	return nil, ReasonUnknownKey
}

// appendTries appends the keys of from that fit a, within the budget of
// tries: maxKidlessTries keys, one of them expensive.
func appendTries(out, from []*heldKey, a alg) []*heldKey {
	expensive := false
	for _, k := range from {
		if len(out) == maxKidlessTries {
			break
		}
		if !k.fits(a) || (k.expensive && expensive) {
			continue
		}
		expensive = expensive || k.expensive
		out = append(out, k)
	}
	return out
}

// fits reports whether key k may verify algorithm a: the key's type (and
// curve) must be the algorithm's, and a key that declares its own alg is
// used for that alg only.
func (k *heldKey) fits(a alg) bool {
	info := &algs[a]
	if k.family != info.family {
		return false
	}
	if info.family == familyEC && k.ec.Curve != info.curve {
		return false
	}
	return k.alg == "" || k.alg == info.name
}
