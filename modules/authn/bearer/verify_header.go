package bearer

import (
	"crypto"
	"crypto/elliptic"
	"fmt"
	"strings"

	"github.com/svckit/svc/modules/authn/internal/jsonscan"
)

// The header step reads the JOSE header: one JSON object with unique
// member names, no extension, an algorithm on the allow-list, and the kid
// that names the key. Headers that point elsewhere for a key (jku, x5u,
// jwk, x5c) are ignored: keys come only from the verifier's own set.

// header is what the header step hands on.
type header struct {
	alg alg
	kid string // "" when the token names no key
}

// headerWords are the header values read often enough to be worth not
// allocating: the algorithm names and the usual typ values.
var headerWords = func() []string {
	words := []string{"JWT", "at+jwt", "application/at+jwt"}
	for a := range algCount {
		words = append(words, algs[a].name)
	}
	return words
}()

// readHeader reads s's header: alg (refused unless accepted), kid, and
// typ when types are required. It returns a *TokenError with
// ReasonMalformed, ReasonAlgorithm or ReasonTokenType; a token without a
// signature is refused here, after its alg, so that an unsigned
// `alg: none` token is refused for its algorithm (a forgery), not as
// merely malformed. Headers that point elsewhere for a key (jku, x5u, jwk,
// x5c) are ignored: keys come only from the verifier's own set, looked up
// by kid. Extensions are refused, since none is understood.
func readHeader(s *segments, accepted algSet, types []string) (header, *TokenError) {
	var buf [16]jsonscan.Member
	members, err := jsonscan.Members(s.header, buf[:0], headerWords)
	if err != nil {
		return header{}, refuse(ReasonMalformed, err)
	}
	if !uniqueNames(members) {
		return header{}, refuse(ReasonMalformed, errDuplicate)
	}
	var alg, kid, typ *jsonscan.Member
	for i := range members {
		switch m := &members[i]; m.Name {
		case "crit":
			return header{}, refuse(ReasonMalformed, errCrit)
		case "b64":
			return header{}, refuse(ReasonMalformed, errB64)
		case "enc", "zip":
			return header{}, refuse(ReasonMalformed, errJWEHeader)
		case "alg":
			alg = m
		case "kid":
			kid = m
		case "typ":
			typ = m
		}
	}
	if alg == nil || !alg.IsText {
		return header{}, refuse(ReasonMalformed, errNoAlg)
	}
	a, known := algByName(alg.Text)
	switch {
	case strings.EqualFold(alg.Text, "none"):
		return header{}, refuse(ReasonAlgorithm, errAlgNone)
	case !known || !accepted.has(a):
		return header{}, refuse(ReasonAlgorithm, fmt.Errorf("%w: %s is not among the accepted (bearer.Algorithms)", errAlgRefused, quoteSetting(alg.Text)))
	}
	h := header{alg: a}
	if kid != nil {
		if !kid.IsText {
			return header{}, refuse(ReasonMalformed, errKid)
		}
		h.kid = kid.Text
	}
	if len(types) > 0 && (typ == nil || !typeAllowed(typ.Text, types)) {
		return header{}, refuse(ReasonTokenType, errTokenType)
	}
	if len(s.sig) == 0 {
		return header{}, refuse(ReasonMalformed, errEmptySegment)
	}
	return h, nil
}

// typeAllowed reports whether typ is one of types (normalized).
func typeAllowed(typ string, types []string) bool {
	typ = normalizeType(typ)
	for _, t := range types {
		if t == typ {
			return true
		}
	}
	return false
}

// normalizeType lower-cases a media type and drops "application/", as
// RFC 7515 §4.1.9 lets a typ omit it.
func normalizeType(t string) string {
	return strings.TrimPrefix(strings.ToLower(t), "application/")
}

// uniqueNames reports whether no two members share a name. A JOSE header
// has a handful of members, compared pairwise; a long list goes through a
// map so a hostile header cannot make it quadratic.
func uniqueNames(ms []jsonscan.Member) bool {
	if len(ms) <= 16 {
		for i := range ms {
			for j := i + 1; j < len(ms); j++ {
				if ms[i].Name == ms[j].Name {
					return false
				}
			}
		}
		return true
	}
	seen := make(map[string]struct{}, len(ms))
	for _, m := range ms {
		if _, dup := seen[m.Name]; dup {
			return false
		}
		seen[m.Name] = struct{}{}
	}
	return true
}

// alg is one accepted JWS algorithm.
type alg uint8

const (
	algRS256 alg = iota
	algRS384
	algRS512
	algPS256
	algPS384
	algPS512
	algES256
	algES384
	algES512
	algEdDSA
	algCount
)

// keyFamily is the key type an algorithm needs.
type keyFamily uint8

const (
	familyRSA keyFamily = iota + 1
	familyEC
	familyEd25519
)

type algInfo struct {
	name   string
	family keyFamily
	hash   crypto.Hash
	pss    bool
	curve  elliptic.Curve // ES only
}

var algs = [algCount]algInfo{
	algRS256: {name: "RS256", family: familyRSA, hash: crypto.SHA256},
	algRS384: {name: "RS384", family: familyRSA, hash: crypto.SHA384},
	algRS512: {name: "RS512", family: familyRSA, hash: crypto.SHA512},
	algPS256: {name: "PS256", family: familyRSA, hash: crypto.SHA256, pss: true},
	algPS384: {name: "PS384", family: familyRSA, hash: crypto.SHA384, pss: true},
	algPS512: {name: "PS512", family: familyRSA, hash: crypto.SHA512, pss: true},
	algES256: {name: "ES256", family: familyEC, hash: crypto.SHA256, curve: elliptic.P256()},
	algES384: {name: "ES384", family: familyEC, hash: crypto.SHA384, curve: elliptic.P384()},
	algES512: {name: "ES512", family: familyEC, hash: crypto.SHA512, curve: elliptic.P521()},
	algEdDSA: {name: "EdDSA", family: familyEd25519},
}

// algByName maps a header's alg to an accepted algorithm; the names are
// case-sensitive (RFC 7515 §4.1.1), so "rs256" is unknown.
func algByName(name string) (alg, bool) {
	switch name {
	case "RS256":
		return algRS256, true
	case "RS384":
		return algRS384, true
	case "RS512":
		return algRS512, true
	case "PS256":
		return algPS256, true
	case "PS384":
		return algPS384, true
	case "PS512":
		return algPS512, true
	case "ES256":
		return algES256, true
	case "ES384":
		return algES384, true
	case "ES512":
		return algES512, true
	case "EdDSA":
		return algEdDSA, true
	}
	return 0, false
}

// algSet is a set of accepted algorithms as a bit mask.
type algSet uint16

func (s algSet) has(a alg) bool { return s&(1<<a) != 0 }

func allAlgs() algSet { return 1<<algCount - 1 }

// defaultAlgs is the allow-list without Algorithms: every algorithm but
// ES512. One P-521 verification costs about 30 times an ES256 one, so a
// forged ES512 token would cost more than the verifier lets any unsigned
// input cost (10 times a fresh ES256 verification); an app whose provider
// signs with ES512 names it in Algorithms.
func defaultAlgs() algSet { return allAlgs() &^ (1 << algES512) }
