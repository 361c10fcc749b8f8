package bearer

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/svckit/svc/modules/authn/internal/jsonscan"
)

// signedIntrospectionTypes is the typ a signed answer must carry (RFC
// 9701 §5), normalized as TokenTypes normalizes.
var signedIntrospectionTypes = []string{normalizeType("token-introspection+jwt")}

// maxSignedIntrospection bounds a signed answer: a JWT, read as one.
const maxSignedIntrospection = 64 << 10

// readIntrospection judges an RFC 7662 answer: one JSON object with
// unique member names and a boolean `active`, else an error (no usable
// answer, 503). An inactive token is refused with ReasonInactive; an
// active one has its claims typed and checked as a JWT's are (readClaims'
// rules) and its token_type, when sent, must be Bearer, or DPoP with the
// key it is bound to (cnf.jkt, RFC 9449 §6.2); such a refusal is a
// *TokenError marked Signed, the issuer having vouched for the claims.
func (v *JWTVerifier) readIntrospection(body []byte, now time.Time) (Principal, time.Time, error) {
	raw, reg, err := splitPayload(body, v.payloadWords)
	if err != nil {
		return Principal{}, time.Time{}, fmt.Errorf("answer is not one JSON object with unique names: %w", err)
	}
	switch string(raw["active"]) {
	case "true":
	case "false":
		return Principal{}, time.Time{}, &TokenError{Reason: ReasonInactive, Err: errInactive}
	default:
		return Principal{}, time.Time{}, errNoActive
	}
	p, until, err := v.judgeClaims(raw, reg, now)
	if err != nil {
		return Principal{}, time.Time{}, err
	}
	if tt, ok := raw["token_type"]; ok {
		var s string
		ok := json.Unmarshal(tt, &s) == nil
		// A DPoP token binds by its cnf.jkt, which the gate's DPoP checks
		// (and a gate without authn.DPoP refuses it: dpopTyped); without
		// one it would pass without its proof.
		if !ok || !strings.EqualFold(s, "Bearer") && !(strings.EqualFold(s, "DPoP") && p.Binding().BoundToAKey()) {
			p.Authenticated = false
			return Principal{}, time.Time{}, &TokenError{Reason: ReasonTokenType, Signed: true, Principal: p, Err: errIntrospectType}
		}
	}
	return p, until, nil
}

// openSignedIntrospection verifies an RFC 9701 answer with the issuer's
// keys, as a token's signature is verified (same algorithms, same keys,
// same budget), checks its typ, `iss` (the issuer) and `aud` (the
// client's ID), and returns the token_introspection object inside and the
// answer's `iat` (0 when it has none, or none that is a number). Its
// errors wrap nothing: a signed answer that does not verify is the
// issuer's failure, answered 503, never a refusal of the caller's token.
func (v *JWTVerifier) openSignedIntrospection(ctx context.Context, body []byte, clientID string) ([]byte, int64, error) {
	s, terr := split(strings.TrimSpace(string(body)), maxSignedIntrospection)
	if terr != nil {
		return nil, 0, fmt.Errorf("signed answer: %v", terr)
	}
	h, terr := readHeader(&s, v.algs, signedIntrospectionTypes)
	if terr != nil {
		return nil, 0, fmt.Errorf("signed answer: %v", terr)
	}
	var buf [maxKidlessTries]*heldKey
	keys, err := v.keysFor(ctx, h, buf[:0])
	if err != nil {
		return nil, 0, fmt.Errorf("signed answer: %v", err)
	}
	if _, err := v.checkSignature(ctx, h.alg, keys, &s); err != nil {
		return nil, 0, fmt.Errorf("signed answer: %v", err)
	}
	var mbuf [16]jsonscan.Member
	members, err := jsonscan.Members(s.payload, mbuf[:0], nil)
	if err != nil || !uniqueNames(members) {
		return nil, 0, fmt.Errorf("signed answer: payload is not one JSON object with unique names")
	}
	var iss, content *jsonscan.Member
	var aud []string
	var iat int64
	for i := range members {
		switch m := &members[i]; m.Name {
		case "iss":
			iss = m
		case "aud":
			if m.IsText {
				aud = []string{m.Text}
			} else {
				aud, _ = jsonscan.StringArray(m.Value)
			}
		case "token_introspection":
			content = m
		case "iat":
			if n, err := strconv.ParseInt(string(m.Value), 10, 64); err == nil && n > 0 {
				iat = n
			}
		}
	}
	switch {
	case iss == nil || !iss.IsText || iss.Text != v.cfg.issuer:
		return nil, 0, errSignedIssuer
	case !slices.Contains(aud, clientID):
		return nil, 0, errSignedAudience
	case content == nil || len(content.Value) == 0 || content.Value[0] != '{':
		return nil, 0, errSignedNoContent
	}
	return content.Value, iat, nil
}
