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

// member is one top-level member of a JSON object.
type member struct {
	name  string
	value json.RawMessage
}

// splitObject returns the top-level members of a JSON text that json.Valid
// accepted. It refuses a text that is not an object, and duplicate names
// (encoding/json would keep the last, so a second "alg" or "exp" could hide
// behind the first); names are compared after unescaping.
func splitObject(raw []byte) (map[string]json.RawMessage, error) {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return nil, errNotObject
	}
	var buf [16]member
	members := buf[:0]
	i = skipSpace(raw, i+1)
	if raw[i] != '}' {
		for {
			end := skipString(raw, i)
			name, ok := memberName(raw[i:end])
			if !ok {
				return nil, errNotObject
			}
			i = skipSpace(raw, end)
			i = skipSpace(raw, i+1) // past ':'
			vend := skipValue(raw, i)
			members = append(members, member{name: name, value: raw[i:vend:vend]})
			i = skipSpace(raw, vend)
			if raw[i] == '}' {
				break
			}
			i = skipSpace(raw, i+1) // past ','
		}
	}
	obj := make(map[string]json.RawMessage, len(members))
	for _, m := range members {
		if _, dup := obj[m.name]; dup {
			return nil, errDuplicate
		}
		obj[m.name] = m.value
	}
	return obj, nil
}

func skipSpace(raw []byte, i int) int {
	for i < len(raw) {
		switch raw[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// skipString returns the index just past the string starting at raw[i].
func skipString(raw []byte, i int) int {
	for i++; i < len(raw); i++ {
		switch raw[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return i
}

// skipValue returns the index just past the value starting at raw[i].
func skipValue(raw []byte, i int) int {
	switch raw[i] {
	case '"':
		return skipString(raw, i)
	case '{', '[':
		depth := 0
		for i < len(raw) {
			switch raw[i] {
			case '"':
				i = skipString(raw, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	default: // number, true, false, null
		for i < len(raw) {
			switch raw[i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return i
			}
			i++
		}
		return i
	}
}

// memberName unquotes a member name. The common names of JWT headers and
// claims come back as constants, so reading them allocates nothing.
func memberName(quoted []byte) (string, bool) {
	body := quoted[1 : len(quoted)-1]
	switch string(body) {
	case "alg":
		return "alg", true
	case "kid":
		return "kid", true
	case "typ":
		return "typ", true
	case "iss":
		return "iss", true
	case "sub":
		return "sub", true
	case "aud":
		return "aud", true
	case "exp":
		return "exp", true
	case "nbf":
		return "nbf", true
	case "iat":
		return "iat", true
	case "jti":
		return "jti", true
	case "scope":
		return "scope", true
	case "scp":
		return "scp", true
	case "client_id":
		return "client_id", true
	case "azp":
		return "azp", true
	case "auth_time":
		return "auth_time", true
	case "sid":
		return "sid", true
	}
	return jsonString(quoted)
}

// jsonString reads a JSON string value; ok is false for anything else.
func jsonString(raw json.RawMessage) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	body := raw[1 : len(raw)-1]
	if !hasEscape(body) {
		return string(body), true
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", false
	}
	return s, true
}

func hasEscape(b []byte) bool {
	for _, c := range b {
		if c == '\\' {
			return true
		}
	}
	return false
}
