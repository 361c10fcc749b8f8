package gate_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"sync"
	"testing"
	"time"
)

const (
	issuer   = "https://issuer.example"
	audience = "https://api.example"
)

// poolSize is how many distinct tokens the fresh-token cases cycle
// through: far more than the 64 entries of the svc/cache-miss variant, so
// nearly every request misses.
const poolSize = 4096

// token is one signed ES256 access token, with what the raw-signature
// floor needs already decoded.
type token struct {
	auth  []string // the Authorization header value, ready to install
	input []byte   // header.payload, the signing input
	r, s  *big.Int
}

// keys holds the signing key and the tokens; the pool is minted once, and
// only when a fresh-token case asks for it.
type keys struct {
	key  *ecdsa.PrivateKey
	one  token
	once sync.Once
	pool []token
}

var (
	fixtureOnce sync.Once
	fixture     *keys
)

func theKeys(tb testing.TB) *keys {
	tb.Helper()
	fixtureOnce.Do(func() {
		fixture = newKeys()
		fixture.one = fixture.mint(0, time.Now())
	})
	return fixture
}

func newKeys() *keys {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		panic(err)
	}
	return &keys{key: key}
}

func (k *keys) tokens() []token {
	k.once.Do(func() {
		now := time.Now()
		k.pool = make([]token, poolSize)
		for i := range k.pool {
			k.pool[i] = k.mint(i+1, now)
		}
	})
	return k.pool
}

// mint signs an access token of a typical size (about 500 bytes, the
// claims of the bench/authn fixture); n makes its jti, and so the token,
// unique.
func (k *keys) mint(n int, now time.Time) token { return k.mintWith(n, now, nil) }

// mintWith is mint with extra claims (acr, auth_time) set or replaced.
func (k *keys) mintWith(n int, now time.Time, extra map[string]any) token {
	header := `{"alg":"ES256","typ":"at+jwt","kid":"k1"}`
	claims := map[string]any{
		"iss": issuer, "sub": "user-1234567890", "aud": audience,
		"exp": now.Add(time.Hour).Unix(), "iat": now.Unix(), "nbf": now.Unix(),
		"jti": fmt.Sprintf("3f1e1c2a-9b7d-4d8e-8f6a-%012d", n), "client_id": "web-app",
		"scope": "openid profile orders:read orders:write",
	}
	for name, v := range extra {
		claims[name] = v
	}
	payload, err := json.Marshal(claims)
	if err != nil {
		panic(err)
	}
	enc := base64.RawURLEncoding
	input := enc.EncodeToString([]byte(header)) + "." + enc.EncodeToString(payload)
	digest := sha256.Sum256([]byte(input))
	r, s, err := ecdsa.Sign(rand.Reader, k.key, digest[:])
	if err != nil {
		panic(err)
	}
	sig := make([]byte, 64)
	r.FillBytes(sig[:32])
	s.FillBytes(sig[32:])
	tok := input + "." + enc.EncodeToString(sig)
	return token{auth: []string{"Bearer " + tok}, input: []byte(input), r: r, s: s}
}

// discardWriter is a ResponseWriter that keeps the status and drops the
// body. One is reused for every iteration; reset empties its header map
// the same way for every contender.
type discardWriter struct {
	h      http.Header
	status int
}

func newDiscardWriter() *discardWriter { return &discardWriter{h: http.Header{}} }

func (w *discardWriter) Header() http.Header { return w.h }
func (w *discardWriter) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
}
func (w *discardWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return len(p), nil
}

func (w *discardWriter) reset() {
	clear(w.h)
	w.status = 0
}
