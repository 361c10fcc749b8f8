package dpop_test

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/hmac"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	_ "crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"errors"
	"math/big"
	"testing"

	"github.com/go-jose/go-jose/v4"

	"github.com/svckit/svc/modules/authn/dpop"
)

var b64 = base64.RawURLEncoding

// client is a DPoP client's key and how it signs.
type client struct {
	alg  string
	priv crypto.Signer
	jwk  map[string]any // public members
}

func newES256(t testing.TB) *client {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return &client{alg: "ES256", priv: k, jwk: publicJWK(t, k.Public())}
}

func newEC(t testing.TB, curve elliptic.Curve, alg string) *client {
	k, err := ecdsa.GenerateKey(curve, rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return &client{alg: alg, priv: k, jwk: publicJWK(t, k.Public())}
}

func newRS256(t testing.TB, bits int) *client {
	k, err := rsa.GenerateKey(rand.Reader, bits)
	if err != nil {
		t.Fatal(err)
	}
	return &client{alg: "RS256", priv: k, jwk: publicJWK(t, k.Public())}
}

func newEdDSA(t testing.TB) *client {
	_, k, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return &client{alg: "EdDSA", priv: k, jwk: publicJWK(t, k.Public())}
}

func publicJWK(t testing.TB, pub crypto.PublicKey) map[string]any {
	raw, err := json.Marshal(jose.JSONWebKey{Key: pub})
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// thumbprint is the RFC 7638 thumbprint of c's key.
func (c *client) thumbprint(t testing.TB) string {
	k := jose.JSONWebKey{Key: c.priv.Public()}
	tp, err := k.Thumbprint(crypto.SHA256)
	if err != nil {
		t.Fatal(err)
	}
	return b64.EncodeToString(tp)
}

// proof is a proof under construction: header and claims as maps, so that
// a test can spoil any of them.
type proof struct {
	header map[string]any
	claims map[string]any
	sign   func(input []byte) []byte // default: c's key by c.alg
}

var jtiSeq int

func (c *client) proof(method, htu string, iat int64) *proof {
	jtiSeq++
	return &proof{
		header: map[string]any{"typ": "dpop+jwt", "alg": c.alg, "jwk": c.jwk},
		claims: map[string]any{"jti": "jti-" + big.NewInt(int64(jtiSeq)).String(), "htm": method, "htu": htu, "iat": iat},
		sign:   c.signer(),
	}
}

func (c *client) signer() func([]byte) []byte {
	return func(input []byte) []byte {
		switch k := c.priv.(type) {
		case *ecdsa.PrivateKey:
			size := (k.Curve.Params().BitSize + 7) / 8
			h := crypto.SHA256
			if size > 32 {
				h = crypto.SHA384
			}
			d := h.New()
			d.Write(input)
			r, s, err := ecdsa.Sign(rand.Reader, k, d.Sum(nil))
			if err != nil {
				panic(err)
			}
			out := make([]byte, 2*size)
			r.FillBytes(out[:size])
			s.FillBytes(out[size:])
			return out
		case *rsa.PrivateKey:
			h := sha256.Sum256(input)
			out, err := rsa.SignPKCS1v15(rand.Reader, k, crypto.SHA256, h[:])
			if err != nil {
				panic(err)
			}
			return out
		case ed25519.PrivateKey:
			return ed25519.Sign(k, input)
		}
		panic(errors.New("unknown key"))
	}
}

// pss signs with c's RSA key by PS256 with the given salt length.
func pss(c *client, salt int) func([]byte) []byte {
	return func(input []byte) []byte {
		h := sha256.Sum256(input)
		out, err := rsa.SignPSS(rand.Reader, c.priv.(*rsa.PrivateKey), crypto.SHA256, h[:], &rsa.PSSOptions{SaltLength: salt})
		if err != nil {
			panic(err)
		}
		return out
	}
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func hs256(key []byte) func([]byte) []byte {
	return func(input []byte) []byte {
		m := hmac.New(sha256.New, key)
		m.Write(input)
		return m.Sum(nil)
	}
}

func (p *proof) String() string {
	h, _ := json.Marshal(p.header)
	c, _ := json.Marshal(p.claims)
	input := b64.EncodeToString(h) + "." + b64.EncodeToString(c)
	var sig []byte
	if p.sign != nil {
		sig = p.sign([]byte(input))
	}
	return input + "." + b64.EncodeToString(sig)
}

func ath(token string) string {
	s := sha256.Sum256([]byte(token))
	return b64.EncodeToString(s[:])
}

func reasonOf(err error) string {
	var e *dpop.Error
	if errors.As(err, &e) {
		return e.Reason
	}
	return ""
}
