package bearer

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/hmac"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

const (
	testIssuer   = "https://issuer.example"
	testAudience = "https://api.example"
)

// testNow is the fixed time of the verifier clock in tests.
var testNow = time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)

func fixedClock() func() time.Time { return func() time.Time { return testNow } }

// testKeys are generated once per test binary: RSA generation is slow.
type testKeys struct {
	rsa, rsa2 *rsa.PrivateKey
	rsa1024   *rsa.PrivateKey
	p256      *ecdsa.PrivateKey
	p256b     *ecdsa.PrivateKey
	p384      *ecdsa.PrivateKey
	p521      *ecdsa.PrivateKey
	ed        ed25519.PrivateKey
}

var (
	keysOnce sync.Once
	keysVal  testKeys
)

func keys(t testing.TB) *testKeys {
	t.Helper()
	keysOnce.Do(func() {
		must := func(err error) {
			if err != nil {
				panic(err)
			}
		}
		var err error
		keysVal.rsa, err = rsa.GenerateKey(rand.Reader, 2048)
		must(err)
		keysVal.rsa2, err = rsa.GenerateKey(rand.Reader, 2048)
		must(err)
		keysVal.rsa1024, err = rsa.GenerateKey(rand.Reader, 1024)
		must(err)
		keysVal.p256, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		must(err)
		keysVal.p256b, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		must(err)
		keysVal.p384, err = ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
		must(err)
		keysVal.p521, err = ecdsa.GenerateKey(elliptic.P521(), rand.Reader)
		must(err)
		_, keysVal.ed, err = ed25519.GenerateKey(rand.Reader)
		must(err)
	})
	return &keysVal
}

// jwkJSON renders the public half of key as a JWK with kid (and alg when
// not empty).
func jwkJSON(t testing.TB, key crypto.PublicKey, kid, alg string) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(jose.JSONWebKey{Key: key, KeyID: kid, Algorithm: alg, Use: "sig"})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func jwksJSON(t testing.TB, jwks ...json.RawMessage) []byte {
	t.Helper()
	b, err := json.Marshal(map[string]any{"keys": jwks})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// validClaims are the claims of a token the default verifier accepts.
func validClaims() map[string]any {
	return map[string]any{
		"iss":   testIssuer,
		"sub":   "user-1",
		"aud":   testAudience,
		"exp":   testNow.Add(time.Hour).Unix(),
		"iat":   testNow.Add(-time.Minute).Unix(),
		"nbf":   testNow.Add(-time.Minute).Unix(),
		"jti":   "id-1",
		"scope": "read write",
	}
}

// joseSign signs claims with go-jose, an independent signer, so accepted
// tokens are not only the ones our own test signer makes.
func joseSign(t testing.TB, alg jose.SignatureAlgorithm, key any, kid string, claims map[string]any) string {
	t.Helper()
	opts := (&jose.SignerOptions{}).WithType("at+jwt")
	if kid != "" {
		opts = opts.WithHeader("kid", kid)
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: alg, Key: key}, opts)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := jwt.Signed(signer).Claims(claims).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

var enc = base64.RawURLEncoding

// rawSign builds a compact JWS from raw header and payload JSON text, signed
// with the standard library as alg says. It lets tests write tokens no
// well-behaved library would produce. key is a private key, or []byte for
// HS256.
func rawSign(t testing.TB, alg string, key any, header, payload string) string {
	t.Helper()
	input := enc.EncodeToString([]byte(header)) + "." + enc.EncodeToString([]byte(payload))
	return input + "." + enc.EncodeToString(rawSignature(t, alg, key, input, 0))
}

// pssSaltAuto asks rawSignature for the largest PSS salt that fits.
const pssSaltAuto = -100

// rawSignature signs input. pssSalt overrides the PSS salt length when
// not 0.
func rawSignature(t testing.TB, alg string, key any, input string, pssSalt int) []byte {
	t.Helper()
	hashOf := map[byte]crypto.Hash{'2': crypto.SHA256, '3': crypto.SHA384, '5': crypto.SHA512}
	var h crypto.Hash
	if len(alg) == 5 {
		h = hashOf[alg[2]]
	}
	digest := func() []byte {
		hh := h.New()
		hh.Write([]byte(input))
		return hh.Sum(nil)
	}
	var sig []byte
	var err error
	switch {
	case alg == "EdDSA":
		sig = ed25519.Sign(key.(ed25519.PrivateKey), []byte(input))
	case strings.HasPrefix(alg, "HS"):
		m := hmac.New(h.New, key.([]byte))
		m.Write([]byte(input))
		sig = m.Sum(nil)
	case strings.HasPrefix(alg, "RS"):
		sig, err = rsa.SignPKCS1v15(rand.Reader, key.(*rsa.PrivateKey), h, digest())
	case strings.HasPrefix(alg, "PS"):
		salt := rsa.PSSSaltLengthEqualsHash
		switch pssSalt {
		case 0:
		case pssSaltAuto:
			salt = rsa.PSSSaltLengthAuto
		default:
			salt = pssSalt
		}
		sig, err = rsa.SignPSS(rand.Reader, key.(*rsa.PrivateKey), h, digest(), &rsa.PSSOptions{SaltLength: salt})
	case strings.HasPrefix(alg, "ES"):
		k := key.(*ecdsa.PrivateKey)
		var r, s *big.Int
		r, s, err = ecdsa.Sign(rand.Reader, k, digest())
		size := (k.Curve.Params().BitSize + 7) / 8
		sig = make([]byte, 2*size)
		r.FillBytes(sig[:size])
		s.FillBytes(sig[size:])
	default:
		t.Fatalf("rawSign: no signer for %q", alg)
	}
	if err != nil {
		t.Fatal(err)
	}
	return sig
}

// mustJSON renders v as JSON text.
func mustJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// jwksServer is a JWK Set endpoint on loopback that counts its requests.
type jwksServer struct {
	*httptest.Server
	body     atomic.Pointer[[]byte]
	status   atomic.Int32
	requests atomic.Int32
	cacheCtl atomic.Pointer[string] // Cache-Control the last request sent
	respCC   atomic.Pointer[string] // Cache-Control to answer with
	gate     chan struct{}          // when not nil, each request waits for a receive
}

func newJWKSServer(t testing.TB, body []byte) *jwksServer {
	t.Helper()
	s := &jwksServer{}
	s.body.Store(&body)
	s.status.Store(http.StatusOK)
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.requests.Add(1)
		cc := r.Header.Get("Cache-Control")
		s.cacheCtl.Store(&cc)
		if s.gate != nil {
			select {
			case <-s.gate:
			case <-r.Context().Done():
				return
			}
		}
		if st := int(s.status.Load()); st != http.StatusOK {
			w.WriteHeader(st)
			return
		}
		if rc := s.respCC.Load(); rc != nil {
			w.Header().Set("Cache-Control", *rc)
		}
		w.Header().Set("Content-Type", "application/jwk-set+json")
		w.Write(*s.body.Load())
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *jwksServer) setBody(b []byte) { s.body.Store(&b) }

// openVerifier opens v and closes it when the test ends.
func openVerifier(t testing.TB, v *JWTVerifier) *JWTVerifier {
	t.Helper()
	if err := v.Open(context.Background()); err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := v.Close(ctx); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return v
}

// waitKeys polls until v holds keys (the loader runs in the background).
func waitKeys(t testing.TB, v *JWTVerifier) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for v.set.Load() == nil {
		if time.Now().After(deadline) {
			t.Fatalf("keys never loaded: %v", v.keys.unavailable())
		}
		time.Sleep(time.Millisecond)
	}
}

// reasonOf returns the reason of a *TokenError, failing the test on any
// other error.
func reasonOf(t testing.TB, err error) Reason {
	t.Helper()
	var te *TokenError
	if !errors.As(err, &te) {
		t.Fatalf("error %v (%T) is not a *TokenError", err, err)
	}
	return te.Reason
}

// joseJWK is a go-jose JWK of key (private or public).
func joseJWK(key any, kid string) jose.JSONWebKey {
	return jose.JSONWebKey{Key: key, KeyID: kid, Use: "sig"}
}
