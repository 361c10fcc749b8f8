package authn

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"unicode/utf8"
)

// The pre-parser reads a compact JWS without trusting it: it refuses
// everything malformed before any key lookup or signature work, and hands
// on the exact bytes the signature covers.

// b64 decodes base64url without padding and refuses non-canonical input
// (set trailing bits), so one token has one spelling. Characters outside
// the alphabet (padding, whitespace, line breaks, which the standard
// decoder skips) are refused before decoding by checkAlphabet.
var b64 = base64.RawURLEncoding.Strict()

// parsedToken is a pre-parsed compact JWS.
type parsedToken struct {
	alg          alg
	kid          string
	signingInput string // header "." payload, as sent
	payload      map[string]json.RawMessage
	sig          []byte
}

var (
	errEmpty        = errors.New("empty token")
	errSegments     = errors.New("not three dot-separated segments")
	errAlphabet     = errors.New("character outside base64url")
	errEmptySegment = errors.New("empty segment")
	errBase64       = errors.New("segment is not canonical base64url")
	errNotObject    = errors.New("segment is not a single JSON object")
	errUTF8         = errors.New("segment is not valid UTF-8")
	errDuplicate    = errors.New("duplicate JSON member name")
	errNoAlg        = errors.New("header has no alg string")
	errKid          = errors.New("header kid is not a string")
	errCrit         = errors.New("header has crit: no extension is understood")
	errB64          = errors.New("header has b64: unencoded payloads are not accepted")
	errJWEHeader    = errors.New("header has enc or zip: not a JWS")
	errAlgNone      = errors.New("alg none")
	errAlgRefused   = errors.New("alg not accepted")
	errTooLarge     = errors.New("token longer than the size limit")
	errTokenType    = errors.New("typ is not one the verifier requires")
	errEncrypted    = errors.New("token is a JWE (five segments)")
)

func refuse(r Reason, err error) *TokenError { return &TokenError{Reason: r, Err: err} }

// preparse checks token's shape and header. It never panics, allocates in
// proportion to the token only after the size check, and returns a
// *TokenError with ReasonTooLarge, ReasonEncrypted, ReasonMalformed or
// ReasonAlgorithm.
func preparse(token string, maxSize int, accepted algSet, types ...string) (*parsedToken, *TokenError) {
	// The size cap comes before anything that splits or scans the token
	// (CVE-2025-27144, CVE-2025-30204).
	if len(token) > maxSize {
		return nil, refuse(ReasonTooLarge, errTooLarge)
	}
	if token == "" {
		return nil, refuse(ReasonMalformed, errEmpty)
	}
	switch strings.Count(token, ".") {
	case 2:
	case 4:
		return nil, refuse(ReasonEncrypted, errEncrypted)
	default:
		return nil, refuse(ReasonMalformed, errSegments)
	}
	if !checkAlphabet(token) {
		return nil, refuse(ReasonMalformed, errAlphabet)
	}
	first := strings.IndexByte(token, '.')
	last := strings.LastIndexByte(token, '.')
	headerSeg, payloadSeg, sigSeg := token[:first], token[first+1:last], token[last+1:]
	if headerSeg == "" || payloadSeg == "" {
		return nil, refuse(ReasonMalformed, errEmptySegment)
	}

	pt := &parsedToken{signingInput: token[:last]}
	header, err := decodeObject(headerSeg)
	if err != nil {
		return nil, refuse(ReasonMalformed, err)
	}
	if terr := pt.readHeader(header, accepted); terr != nil {
		return nil, terr
	}
	if len(types) > 0 && !typeAllowed(header["typ"], types) {
		return nil, refuse(ReasonTokenType, errTokenType)
	}
	if sigSeg == "" {
		// Checked after alg, so an unsigned `alg: none` token is refused
		// for its algorithm (a forgery), not as merely malformed.
		return nil, refuse(ReasonMalformed, errEmptySegment)
	}
	if pt.payload, err = decodeObject(payloadSeg); err != nil {
		return nil, refuse(ReasonMalformed, err)
	}
	if pt.sig, err = b64.DecodeString(sigSeg); err != nil {
		return nil, refuse(ReasonMalformed, errBase64)
	}
	return pt, nil
}

// readHeader reads alg and kid. Headers that point elsewhere for a key
// (jku, x5u, jwk, x5c) are ignored: keys come only from the verifier's own
// set, looked up by kid. Extensions are refused, since none is understood.
func (pt *parsedToken) readHeader(h map[string]json.RawMessage, accepted algSet) *TokenError {
	if _, ok := h["crit"]; ok {
		return refuse(ReasonMalformed, errCrit)
	}
	if _, ok := h["b64"]; ok {
		return refuse(ReasonMalformed, errB64)
	}
	_, enc := h["enc"]
	_, zip := h["zip"]
	if enc || zip {
		return refuse(ReasonMalformed, errJWEHeader)
	}
	name, ok := jsonString(h["alg"])
	if !ok {
		return refuse(ReasonMalformed, errNoAlg)
	}
	a, known := algByName(name)
	switch {
	case strings.EqualFold(name, "none"):
		return refuse(ReasonAlgorithm, errAlgNone)
	case !known || !accepted.has(a):
		return refuse(ReasonAlgorithm, errAlgRefused)
	}
	pt.alg = a
	if raw, present := h["kid"]; present {
		if pt.kid, ok = jsonString(raw); !ok {
			return refuse(ReasonMalformed, errKid)
		}
	}
	return nil
}

// typeAllowed reports whether the typ header is one of types (normalized).
func typeAllowed(raw json.RawMessage, types []string) bool {
	typ, ok := jsonString(raw)
	if !ok {
		return false
	}
	typ = normalizeType(typ)
	for _, t := range types {
		if t == typ {
			return true
		}
	}
	return false
}

// alphabet marks the bytes a compact JWS may hold.
var alphabet = func() (t [256]bool) {
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = true
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c] = true
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	t['-'], t['_'], t['.'] = true, true, true
	return t
}()

func checkAlphabet(s string) bool {
	for i := 0; i < len(s); i++ {
		if !alphabet[s[i]] {
			return false
		}
	}
	return true
}

// decodeObject decodes a base64url segment holding one JSON object with
// unique member names.
func decodeObject(seg string) (map[string]json.RawMessage, error) {
	raw, err := b64.DecodeString(seg)
	if err != nil {
		return nil, errBase64
	}
	if !utf8.Valid(raw) {
		return nil, errUTF8
	}
	// encoding/json validates; splitObject then cuts the members out
	// without reflection or copies (the values alias raw, which nothing
	// else holds), several times faster than json.Unmarshal into a map.
	if !json.Valid(raw) {
		return nil, errNotObject
	}
	return splitObject(raw)
}
