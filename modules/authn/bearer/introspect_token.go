package bearer

import (
	"encoding/base64"
	"errors"
	"strings"

	"github.com/svckit/svc/modules/authn/internal/b64token"
)

// Which tokens are opaque: the shapes a verifier with Introspect sends to
// the endpoint, and one without it refuses saying it introspects none.

// isJWS reports whether token has the shape of a compact JWS or JWE: two
// or four dots, and a first segment that decodes to text starting a JSON
// object. Anything else is an opaque token. It reads four characters of
// the token and allocates nothing.
func isJWS(token string) bool {
	dot := strings.IndexByte(token, '.')
	if dot < 4 {
		return false
	}
	if n := strings.Count(token, "."); n != 2 && n != 4 {
		return false
	}
	var in [4]byte
	var out [3]byte
	copy(in[:], token)
	if _, err := base64.RawURLEncoding.Decode(out[:], in[:]); err != nil {
		return false
	}
	for _, c := range out {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		case '{':
			return true
		}
		return false
	}
	// Only white space so far: leave the verdict to the JWS steps.
	return true
}

// errNotBearer refuses an opaque token that is not a b64token.
var errNotBearer = errors.New("opaque token is not an RFC 6750 b64token")

// notIntrospected refuses an opaque token given to a verifier that
// introspects none, saying so (ReasonMalformed, ErrOpaqueNotIntrospected: the
// gate's detail names it), where the JWS steps would only find it not
// three segments; nil for a token those steps should judge: one with the
// dots of a JWS or JWE (two or four), one over maxSize, or one that is no
// b64token at all.
func notIntrospected(token string, maxSize int) *TokenError {
	if len(token) > maxSize || !b64token.Valid(token) {
		return nil
	}
	if n := strings.Count(token, "."); n == 2 || n == 4 {
		return nil
	}
	return refuse(ReasonMalformed, ErrOpaqueNotIntrospected)
}
