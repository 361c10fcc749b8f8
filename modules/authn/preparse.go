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
// (set trailing bits), so one token has one spelling, and every character
// outside the alphabet (padding, spaces, '+', '/', non-ASCII) except line
// breaks, which the standard decoder skips: those are refused before
// decoding.
var b64 = base64.RawURLEncoding.Strict()

// parsedToken is a pre-parsed compact JWS.
type parsedToken struct {
	alg          alg
	kid          string
	signingInput string // header "." payload, as sent
	payload      map[string]json.RawMessage
	reg          registered // the registered claims among payload
	sig          []byte
}

var (
	errEmpty        = errors.New("empty token")
	errSegments     = errors.New("not three dot-separated segments")
	errAlphabet     = errors.New("line break inside the token")
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
func preparse(token string, maxSize int, accepted algSet, types ...string) (parsedToken, *TokenError) {
	// The size cap comes before anything that splits or scans the token
	// (CVE-2025-27144, CVE-2025-30204).
	if len(token) > maxSize {
		return parsedToken{}, refuse(ReasonTooLarge, errTooLarge)
	}
	if token == "" {
		return parsedToken{}, refuse(ReasonMalformed, errEmpty)
	}
	switch strings.Count(token, ".") {
	case 2:
	case 4:
		return parsedToken{}, refuse(ReasonEncrypted, errEncrypted)
	default:
		return parsedToken{}, refuse(ReasonMalformed, errSegments)
	}
	if strings.IndexByte(token, '\n') >= 0 || strings.IndexByte(token, '\r') >= 0 {
		return parsedToken{}, refuse(ReasonMalformed, errAlphabet)
	}
	first := strings.IndexByte(token, '.')
	last := strings.LastIndexByte(token, '.')
	headerSeg, payloadSeg, sigSeg := token[:first], token[first+1:last], token[last+1:]
	if headerSeg == "" || payloadSeg == "" {
		return parsedToken{}, refuse(ReasonMalformed, errEmptySegment)
	}

	// One buffer holds the three decoded segments: the payload's claim
	// values alias it, and nothing else writes to it.
	buf := make([]byte, b64.DecodedLen(len(headerSeg))+b64.DecodedLen(len(payloadSeg))+b64.DecodedLen(len(sigSeg)))
	headerRaw, buf, err := decodeJSON(buf, headerSeg)
	if err != nil {
		return parsedToken{}, refuse(ReasonMalformed, err)
	}
	var hbuf [16]member
	header, err := splitMembers(headerRaw, hbuf[:0])
	if err != nil {
		return parsedToken{}, refuse(ReasonMalformed, err)
	}
	if !uniqueNames(header) {
		return parsedToken{}, refuse(ReasonMalformed, errDuplicate)
	}
	pt := parsedToken{signingInput: token[:last]}
	if terr := pt.readHeader(header, accepted, types); terr != nil {
		return parsedToken{}, terr
	}
	if sigSeg == "" {
		// Checked after alg, so an unsigned `alg: none` token is refused
		// for its algorithm (a forgery), not as merely malformed.
		return parsedToken{}, refuse(ReasonMalformed, errEmptySegment)
	}
	payloadRaw, buf, err := decodeJSON(buf, payloadSeg)
	if err != nil {
		return parsedToken{}, refuse(ReasonMalformed, err)
	}
	if pt.payload, pt.reg, err = splitPayload(payloadRaw); err != nil {
		return parsedToken{}, refuse(ReasonMalformed, err)
	}
	n, err := b64.Decode(buf, []byte(sigSeg))
	if err != nil {
		return parsedToken{}, refuse(ReasonMalformed, errBase64)
	}
	pt.sig = buf[:n:n]
	return pt, nil
}

// readHeader reads alg and kid, and typ when types are required. Headers
// that point elsewhere for a key (jku, x5u, jwk, x5c) are ignored: keys
// come only from the verifier's own set, looked up by kid. Extensions are
// refused, since none is understood.
func (pt *parsedToken) readHeader(h []member, accepted algSet, types []string) *TokenError {
	var algRaw, kidRaw, typRaw json.RawMessage
	for _, m := range h {
		switch m.name {
		case "crit":
			return refuse(ReasonMalformed, errCrit)
		case "b64":
			return refuse(ReasonMalformed, errB64)
		case "enc", "zip":
			return refuse(ReasonMalformed, errJWEHeader)
		case "alg":
			algRaw = m.value
		case "kid":
			kidRaw = m.value
		case "typ":
			typRaw = m.value
		}
	}
	name, ok := algName(algRaw)
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
	if kidRaw != nil {
		if pt.kid, ok = jsonString(kidRaw); !ok {
			return refuse(ReasonMalformed, errKid)
		}
	}
	if len(types) > 0 && !typeAllowed(typRaw, types) {
		return refuse(ReasonTokenType, errTokenType)
	}
	return nil
}

// algName reads the alg header. The names of the accepted algorithms come
// back as constants, so the common header allocates nothing.
func algName(raw json.RawMessage) (string, bool) {
	for a := range algCount {
		if isJSONString(raw, algs[a].name) {
			return algs[a].name, true
		}
	}
	return jsonString(raw)
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

// decodeJSON decodes a base64url segment into the front of buf and checks
// that it is valid UTF-8; it returns the decoded bytes and the rest of buf.
// Whether they are one JSON object is splitMembers' check, made in the
// same pass that cuts the members out.
func decodeJSON(buf []byte, seg string) (raw, rest []byte, err error) {
	n, err := b64.Decode(buf, []byte(seg))
	if err != nil {
		return nil, nil, errBase64
	}
	raw, rest = buf[:n:n], buf[n:]
	if !utf8.Valid(raw) {
		return nil, nil, errUTF8
	}
	return raw, rest, nil
}
