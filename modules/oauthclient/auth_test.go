package oauthclient_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/svckit/svc/internal/testcert"
	"github.com/svckit/svc/modules/oauthclient"
	"github.com/svckit/svc/secret"
)

var (
	rsaOnce sync.Once
	rsaKey  *rsa.PrivateKey
)

func testRSAKey(t testing.TB) *rsa.PrivateKey {
	rsaOnce.Do(func() {
		k, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			t.Fatal(err)
		}
		rsaKey = k
	})
	return rsaKey
}

func rsaKeyPEM(t testing.TB) []byte {
	der, err := x509.MarshalPKCS8PrivateKey(testRSAKey(t))
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
}

// certPEM is a self-signed certificate of key, as PEM and as DER.
func certPEM(t testing.TB, key *rsa.PrivateKey) ([]byte, []byte) {
	c := testcert.SelfSigned(t, testcert.Name("svc-client"), testcert.Key(key))
	return testcert.CertPEM(c.Certificate[0]), c.Certificate[0]
}

// basicCreds decodes client_secret_basic, undoing the form-encoding.
func basicCreds(t testing.TB, h http.Header) (string, string, bool) {
	t.Helper()
	v, ok := strings.CutPrefix(h.Get("Authorization"), "Basic ")
	if !ok {
		return "", "", false
	}
	raw, err := base64.StdEncoding.DecodeString(v)
	if err != nil {
		t.Fatalf("basic auth not base64: %v", err)
	}
	u, p, ok := strings.Cut(string(raw), ":")
	if !ok {
		return "", "", false
	}
	u, err1 := url.QueryUnescape(u)
	p, err2 := url.QueryUnescape(p)
	if err1 != nil || err2 != nil {
		t.Fatalf("basic auth parts are not form-encoded")
	}
	return u, p, true
}

func TestSecretMethodFollowsMetadata(t *testing.T) {
	cases := []struct {
		name    string
		methods []string
		pin     oauthclient.SecretMethod
		body    bool
	}{
		{"none listed", nil, oauthclient.Auto, false},
		{"both listed", []string{"client_secret_post", "client_secret_basic"}, oauthclient.Auto, false},
		{"basic only", []string{"client_secret_basic"}, oauthclient.Auto, false},
		{"post only", []string{"client_secret_post", "private_key_jwt"}, oauthclient.Auto, true},
		{"pinned basic over post only", []string{"client_secret_post"}, oauthclient.Basic, false},
		{"pinned body over basic only", []string{"client_secret_basic"}, oauthclient.Post, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newTokenServer(t)
			s.authMethods = tc.methods
			c := newClient(t, s, newClock(), oauthclient.Secret(tc.pin))
			mustToken(t, newCC(t, c, "api"))
			f, h := s.form(0), s.header(0)
			if tc.body {
				if f.Get("client_id") != "svc-client" || f.Get("client_secret") != "s3cret-value" || h.Get("Authorization") != "" {
					t.Fatalf("want client_secret_post, got form %v auth %q", f, h.Get("Authorization"))
				}
				return
			}
			if u, p, ok := basicCreds(t, h); !ok || u != "svc-client" || p != "s3cret-value" || f.Has("client_secret") || f.Has("client_id") {
				t.Fatalf("want client_secret_basic only, got %q %q %v form %v", u, p, ok, f)
			}
		})
	}
}

func TestBasicFormEncodesIDAndSecret(t *testing.T) {
	s := newTokenServer(t)
	id, sec := "svc:client é", "p@ss:wo rd+/%="
	c := newClient(t, s, newClock(), oauthclient.ClientID(id), oauthclient.ClientSecret(secret.String(sec)))
	mustToken(t, newCC(t, c, "api"))
	raw, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(s.header(0).Get("Authorization"), "Basic "))
	want := url.QueryEscape(id) + ":" + url.QueryEscape(sec)
	if string(raw) != want {
		t.Fatalf("basic credentials %q, want %q", raw, want)
	}
	if u, p, _ := basicCreds(t, s.header(0)); u != id || p != sec {
		t.Fatalf("round trip gave %q %q", u, p)
	}
}

func TestSecretFileRotatesWithoutRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "client-secret")
	os.WriteFile(path, []byte("first\n"), 0o600)
	s := newTokenServer(t)
	clk := newClock()
	c := newClient(t, s, clk, oauthclient.ClientSecretFile(path))
	p := newCC(t, c, "api")
	mustToken(t, p)
	os.WriteFile(path, []byte("second\n"), 0o600)
	clk.Advance(2 * time.Hour)
	mustToken(t, p)
	if _, sec, _ := basicCreds(t, s.header(0)); sec != "first" {
		t.Fatalf("first fetch used %q", sec)
	}
	if _, sec, _ := basicCreds(t, s.header(1)); sec != "second" {
		t.Fatalf("fetch after rotation used %q", sec)
	}
}

// verifyAssertion checks the signature and returns the claims and header.
func verifyAssertion(t *testing.T, assertion string, pub any) (jwt.Claims, jose.Header) {
	t.Helper()
	tok, err := jwt.ParseSigned(assertion, []jose.SignatureAlgorithm{jose.RS256, jose.ES256})
	if err != nil {
		t.Fatalf("assertion does not parse: %v", err)
	}
	var cl jwt.Claims
	if err := tok.Claims(pub, &cl); err != nil {
		t.Fatalf("assertion signature: %v", err)
	}
	return cl, tok.Headers[0]
}

func TestPrivateKeyAssertion(t *testing.T) {
	key := testRSAKey(t)
	cert, certDER := certPEM(t, key)
	t.Run("RFC 7523bis default: issuer audience and typ", func(t *testing.T) {
		s := newTokenServer(t)
		clk := newClock()
		c := newClient(t, s, clk, oauthclient.PrivateKey(rsaKeyPEM(t), oauthclient.KeyID("k1")))
		p := newCC(t, c, "api")
		mustToken(t, p)
		clk.Advance(2 * time.Hour)
		mustToken(t, p)
		f := s.form(0)
		if f.Get("client_assertion_type") != "urn:ietf:params:oauth:client-assertion-type:jwt-bearer" || f.Get("client_id") != "svc-client" {
			t.Fatalf("form %v", f)
		}
		if s.header(0).Get("Authorization") != "" || f.Has("client_secret") {
			t.Fatal("a secret was sent beside the assertion")
		}
		cl, h := verifyAssertion(t, f.Get("client_assertion"), &key.PublicKey)
		if cl.Issuer != "svc-client" || cl.Subject != "svc-client" || len(cl.Audience) != 1 || cl.Audience[0] != s.URL {
			t.Fatalf("claims %+v", cl)
		}
		if h.ExtraHeaders["typ"] != "client-authentication+jwt" || h.KeyID != "k1" || h.Algorithm != "RS256" {
			t.Fatalf("header %+v", h)
		}
		if d := cl.Expiry.Time().Sub(cl.IssuedAt.Time()); d != time.Minute {
			t.Fatalf("lifetime %v, want one minute", d)
		}
		cl2, _ := verifyAssertion(t, s.form(1).Get("client_assertion"), &key.PublicKey)
		if cl.ID == "" || cl.ID == cl2.ID || f.Get("client_assertion") == s.form(1).Get("client_assertion") {
			t.Fatal("assertion or jti reused across fetches")
		}
	})
	t.Run("token endpoint audience, no typ, x5t#S256", func(t *testing.T) {
		s := newTokenServer(t)
		c := newClient(t, s, newClock(), oauthclient.PrivateKey(rsaKeyPEM(t), oauthclient.AudienceTokenEndpoint, oauthclient.Certificate(cert)))
		mustToken(t, newCC(t, c, "api"))
		cl, h := verifyAssertion(t, s.form(0).Get("client_assertion"), &key.PublicKey)
		if cl.Audience[0] != s.URL+"/token" {
			t.Fatalf("aud %v", cl.Audience)
		}
		if _, ok := h.ExtraHeaders["typ"]; ok {
			t.Fatalf("typ sent with the token endpoint audience: %v", h.ExtraHeaders)
		}
		if h.ExtraHeaders["x5t#S256"] != testcert.Thumbprint(certDER) {
			t.Fatalf("x5t#S256 = %v", h.ExtraHeaders["x5t#S256"])
		}
		if _, ok := h.ExtraHeaders["x5t"]; ok {
			t.Fatal("SHA-1 x5t sent")
		}
	})
	t.Run("EC key signs ES256", func(t *testing.T) {
		ec, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		der, _ := x509.MarshalECPrivateKey(ec)
		s := newTokenServer(t)
		c := newClient(t, s, newClock(), oauthclient.PrivateKey(pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der})))
		mustToken(t, newCC(t, c, "api"))
		_, h := verifyAssertion(t, s.form(0).Get("client_assertion"), &ec.PublicKey)
		if h.Algorithm != "ES256" {
			t.Fatalf("alg %s", h.Algorithm)
		}
	})
}

func TestPrivateKeyRefusedAtConstruction(t *testing.T) {
	small, _ := rsa.GenerateKey(rand.Reader, 1024)
	smallDER := x509.MarshalPKCS1PrivateKey(small)
	otherKey, _ := rsa.GenerateKey(rand.Reader, 2048)
	otherCert, _ := certPEM(t, otherKey)
	ec224, _ := ecdsa.GenerateKey(elliptic.P224(), rand.Reader)
	ec224DER, _ := x509.MarshalPKCS8PrivateKey(ec224)
	cases := []struct {
		name string
		pem  []byte
		opts []oauthclient.PrivateKeyOption
		want string
	}{
		{"encrypted PKCS#8", pem.EncodeToMemory(&pem.Block{Type: "ENCRYPTED PRIVATE KEY", Bytes: []byte{1, 2, 3}}), nil, "encrypted"},
		{"encrypted legacy", pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Headers: map[string]string{"Proc-Type": "4,ENCRYPTED", "DEK-Info": "AES-256-CBC,00"}, Bytes: []byte{1}}), nil, "encrypted"},
		{"not PEM", []byte("-----BEGIN nothing"), nil, "PEM"},
		{"DER instead of PEM", x509.MarshalPKCS1PrivateKey(testRSAKey(t)), nil, "PEM"},
		{"a certificate", otherCert, nil, "not a private key"},
		{"garbage in the block", pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: []byte("nope")}), nil, "does not parse"},
		{"RSA 1024", pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: smallDER}), nil, "2048"},
		{"P-224", pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: ec224DER}), nil, "P-256"},
		{"wrong algorithm", rsaKeyPEM(t), []oauthclient.PrivateKeyOption{oauthclient.SigningAlgorithm("ES256")}, "cannot sign"},
		{"certificate of another key", rsaKeyPEM(t), []oauthclient.PrivateKeyOption{oauthclient.Certificate(otherCert)}, "another key"},
		{"bad certificate", rsaKeyPEM(t), []oauthclient.PrivateKeyOption{oauthclient.Certificate([]byte("x"))}, "CERTIFICATE"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := oauthclient.New(oauthclient.WithoutEnv(), oauthclient.Issuer("https://as.example"), oauthclient.ClientID("id"),
				oauthclient.PrivateKey(tc.pem, tc.opts...))
			var ce *oauthclient.ConfigError
			if !errors.As(err, &ce) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want a ConfigError mentioning %q", err, tc.want)
			}
			mustNotLeak(t, err, "BEGIN", "MII")
		})
	}
}

func TestIssuerAudienceRefusalSaysToTryTokenEndpoint(t *testing.T) {
	s := newTokenServer(t)
	s.then(answer{status: 401, body: `{"error":"invalid_client","error_description":"invalid audience"}`})
	c := newClient(t, s, newClock(), oauthclient.PrivateKey(rsaKeyPEM(t)))
	_, err := newCC(t, c, "api").Token(context.Background())
	var cr *oauthclient.ClientRejectedError
	if !errors.As(err, &cr) || !strings.Contains(err.Error(), "oauthclient.AudienceTokenEndpoint") {
		t.Fatalf("err = %v", err)
	}
	if !strings.Contains(err.Error(), `it says "invalid audience"`) {
		t.Fatalf("err = %v, want the server's description", err)
	}
}

func TestAssertionFileIsReadOnEveryFetch(t *testing.T) {
	path := filepath.Join(t.TempDir(), "assertion")
	os.WriteFile(path, []byte("eyJ.first.sig\n"), 0o600)
	s := newTokenServer(t)
	clk := newClock()
	c := newClient(t, s, clk, oauthclient.AssertionFile(path))
	p := newCC(t, c, "api")
	mustToken(t, p)
	os.WriteFile(path, []byte("eyJ.second.sig"), 0o600)
	clk.Advance(2 * time.Hour)
	mustToken(t, p)
	for i, want := range []string{"eyJ.first.sig", "eyJ.second.sig"} {
		f := s.form(i)
		if f.Get("client_assertion") != want || f.Get("client_assertion_type") != "urn:ietf:params:oauth:client-assertion-type:jwt-bearer" {
			t.Fatalf("fetch %d form %v", i, f)
		}
	}
}

func TestAssertionFileFromEnvironment(t *testing.T) {
	path := filepath.Join(t.TempDir(), "assertion")
	os.WriteFile(path, []byte("eyJ.env.sig"), 0o600)
	s := newTokenServer(t)
	t.Setenv("SVC_OAUTHCLIENT_TOKEN_ENDPOINT", s.URL+"/token")
	t.Setenv("SVC_OAUTHCLIENT_CLIENT_ID", "id")
	t.Setenv("SVC_OAUTHCLIENT_ASSERTION_FILE", path)
	c, err := oauthclient.New()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	p, _ := oauthclient.ClientCredentials("api", oauthclient.WithClient(c))
	mustToken(t, p)
	if s.form(0).Get("client_assertion") != "eyJ.env.sig" {
		t.Fatalf("form %v", s.form(0))
	}
}
