package idempotency

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"

	"github.com/svckit/svc/internal/behind"
)

// maxKeyLength is the longest Idempotency-Key accepted, in characters.
const maxKeyLength = 255

// maxStoredResponse bounds a stored response body; a larger one is not
// replayed (the key is released).
const maxStoredResponse = 1 << 20

// readKey reads the Idempotency-Key: one header line, 1 to 255 printable
// ASCII characters. The draft writes it as a structured-field string
// ("..."); a bare value is accepted too, as most clients send one.
func readKey(h http.Header) (key string, present, valid bool) {
	vs := h[HeaderKey]
	if len(vs) == 0 {
		return "", false, false
	}
	if len(vs) > 1 {
		return "", true, false
	}
	key = vs[0]
	if len(key) >= 2 && key[0] == '"' && key[len(key)-1] == '"' {
		key = key[1 : len(key)-1]
		if strings.ContainsAny(key, `"\`) {
			return "", true, false
		}
	}
	if key == "" || len(key) > maxKeyLength {
		return "", true, false
	}
	for i := 0; i < len(key); i++ {
		if key[i] < 0x20 || key[i] > 0x7e {
			return "", true, false
		}
	}
	return key, true, true
}

// fingerprint covers what makes two requests the same payload: method,
// path from the app's root, query and body.
func fingerprint(r *http.Request, body []byte) string {
	h := sha256.New()
	h.Write([]byte(r.Method))
	h.Write([]byte{0})
	h.Write([]byte(behind.Root(r)))
	h.Write([]byte{0})
	h.Write([]byte(r.URL.RawQuery))
	h.Write([]byte{0})
	h.Write(body)
	return hex.EncodeToString(h.Sum(nil))
}
