package bearer

import (
	"encoding/base64"
	"strings"
	"unicode/utf8"
)

// The split step cuts a compact JWS at its dots and decodes its three
// segments, trusting nothing yet: it refuses an oversized or misshapen
// token before any JSON, key or signature work, and hands on the exact
// bytes the signature covers.

// b64 decodes base64url without padding and refuses non-canonical input
// (set trailing bits), so one token has one spelling, and every character
// outside the alphabet (padding, spaces, '+', '/', non-ASCII) except line
// breaks, which the standard decoder skips: those are refused before
// decoding.
var b64 = base64.RawURLEncoding.Strict()

// segments is a compact JWS cut at its dots and decoded.
type segments struct {
	signingInput string // header "." payload, as sent: what the signature covers
	header       []byte // decoded, valid UTF-8
	payload      []byte // decoded, valid UTF-8; read as JSON only once signed
	sig          []byte // empty when the token has no signature (alg none)
}

func refuse(r Reason, err error) *TokenError { return &TokenError{Reason: r, Err: err} }

// split checks token's size and shape and decodes its segments. It never
// panics, allocates only after the size check (one buffer for the three
// segments), and returns a *TokenError with ReasonTooLarge,
// ReasonEncrypted or ReasonMalformed. An empty signature is left for the
// header step, so that `alg: none` is refused for its algorithm.
func split(token string, maxSize int) (segments, *TokenError) {
	// The size cap comes before anything that splits or scans the token
	// (CVE-2025-27144, CVE-2025-30204).
	if len(token) > maxSize {
		return segments{}, refuse(ReasonTooLarge, errTooLarge)
	}
	if token == "" {
		return segments{}, refuse(ReasonMalformed, errEmpty)
	}
	switch strings.Count(token, ".") {
	case 2:
	case 4:
		return segments{}, refuse(ReasonEncrypted, errEncrypted)
	default:
		return segments{}, refuse(ReasonMalformed, errSegments)
	}
	if strings.IndexByte(token, '\n') >= 0 || strings.IndexByte(token, '\r') >= 0 {
		return segments{}, refuse(ReasonMalformed, errAlphabet)
	}
	first := strings.IndexByte(token, '.')
	last := strings.LastIndexByte(token, '.')
	headerSeg, payloadSeg, sigSeg := token[:first], token[first+1:last], token[last+1:]
	if headerSeg == "" || payloadSeg == "" {
		return segments{}, refuse(ReasonMalformed, errEmptySegment)
	}

	// One buffer holds the three decoded segments: the payload's claim
	// values alias it, and nothing else writes to it.
	buf := make([]byte, b64.DecodedLen(len(headerSeg))+b64.DecodedLen(len(payloadSeg))+b64.DecodedLen(len(sigSeg)))
	s := segments{signingInput: token[:last]}
	var err error
	if s.header, buf, err = decodeText(buf, headerSeg); err != nil {
		return segments{}, refuse(ReasonMalformed, err)
	}
	if s.payload, buf, err = decodeText(buf, payloadSeg); err != nil {
		return segments{}, refuse(ReasonMalformed, err)
	}
	n, err := b64.Decode(buf, []byte(sigSeg))
	if err != nil {
		return segments{}, refuse(ReasonMalformed, errBase64)
	}
	s.sig = buf[:n:n]
	return s, nil
}

// decodeText decodes a base64url segment into the front of buf and checks
// that it is valid UTF-8; it returns the decoded bytes and the rest of buf.
// Whether they are one JSON object is for the step that reads them.
func decodeText(buf []byte, seg string) (text, rest []byte, err error) {
	n, err := b64.Decode(buf, []byte(seg))
	if err != nil {
		return nil, nil, errBase64
	}
	text, rest = buf[:n:n], buf[n:]
	if !utf8.Valid(text) {
		return nil, nil, errUTF8
	}
	return text, rest, nil
}
