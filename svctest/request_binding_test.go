package svctest_test

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/pem"
	"net/http"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	jose "github.com/go-jose/go-jose/v4"
	"go.uber.org/fx"

	"github.com/svckit/svc/devissuer"
	"github.com/svckit/svc/fxsvc"
	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/bearer"
	"github.com/svckit/svc/modules/authn/dpop"
	"github.com/svckit/svc/svctest"
)

// .DPoP(key) sends a token bound to key with a fresh proof per request
// (a replayed proof would be refused), through the app's nonce
// challenge; the same token without a proof is refused.
func TestRequestSendsDPoPProofs(t *testing.T) {
	iss, err := devissuer.Start(devissuer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer iss.Close()
	nonces, err := dpop.NewNonceSource([]byte("0123456789abcdef0123456789abcdef"), time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	for name, opts := range map[string][]dpop.Option{"no nonce": nil, "nonce": {dpop.RequireNonce(nonces)}} {
		t.Run(name, func(t *testing.T) {
			v, err := dpop.New(opts...)
			if err != nil {
				t.Fatal(err)
			}
			app := svctest.Start(t, fxsvc.Errors(), fxsvc.Authn(bearer.New(iss.URL, iss.Audience), authn.DPoP(v, false)),
				fx.Provide(func() *chi.Mux {
					r := chi.NewRouter()
					r.With(authn.RequireDPoP).Post("/pay", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("paid")) })
					return r
				}), fxsvc.Serve())
			key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
			tok, _ := iss.Mint(devissuer.Token{Subject: "alice", JKT: thumbprint(t, key)})
			for range 2 {
				if r := app.Request("POST", "/pay?x=1").Token(tok).DPoP(key).JSON(map[string]int{"cents": 5}).Send(t); r.Status != 200 || r.Body != "paid" {
					t.Fatalf("with proofs: %d %s %v", r.Status, r.Body, r.Header)
				}
			}
			if r := app.Request("POST", "/pay").Token(tok).Send(t); r.Status != 401 {
				t.Fatalf("without a proof: %d %s", r.Status, r.Body)
			}
			other, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
			if r := app.Request("POST", "/pay").Token(tok).DPoP(other).Send(t); r.Status != 401 {
				t.Fatalf("another key's proof: %d %s", r.Status, r.Body)
			}
		})
	}
}

// .ClientCertificate(der) passes the certificate as a trusted proxy does
// (RFC 9440), so a token bound to it passes and one bound to another
// certificate is refused.
func TestRequestSendsAClientCertificate(t *testing.T) {
	iss, err := devissuer.Start(devissuer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer iss.Close()
	app := svctest.Start(t, fxsvc.Errors(), fxsvc.TrustedProxies("127.0.0.1/32"),
		fxsvc.Authn(bearer.New(iss.URL, iss.Audience), authn.CertificateBound("Client-Cert")),
		fx.Provide(func() *chi.Mux {
			r := chi.NewRouter()
			r.Get("/me", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("me")) })
			return r
		}), fxsvc.Serve())
	mine, _, _ := iss.ClientCertificate("ledger")
	theirs, _, _ := iss.ClientCertificate("other")
	der := func(p []byte) []byte { b, _ := pem.Decode(p); return b.Bytes }
	sum := sha256.Sum256(der(mine))
	tok, _ := iss.Mint(devissuer.Token{Subject: "ledger", X5T: base64.RawURLEncoding.EncodeToString(sum[:])})
	if r := app.Request("GET", "/me").Token(tok).ClientCertificate(der(mine)).Send(t); r.Status != 200 {
		t.Fatalf("its certificate: %d %s", r.Status, r.Body)
	}
	if r := app.Request("GET", "/me").Token(tok).ClientCertificate(der(theirs)).Send(t); r.Status != 401 {
		t.Fatalf("another certificate: %d %s", r.Status, r.Body)
	}
}

func thumbprint(t *testing.T, k *ecdsa.PrivateKey) string {
	t.Helper()
	tp, err := (&jose.JSONWebKey{Key: k.Public()}).Thumbprint(crypto.SHA256)
	if err != nil {
		t.Fatal(err)
	}
	return base64.RawURLEncoding.EncodeToString(tp)
}
