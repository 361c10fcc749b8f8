package oauthclient_test

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"errors"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/svckit/svc/internal/testcert"
	"github.com/svckit/svc/modules/oauthclient"
)

// remoteKey stands for a key in a KMS: the process sees only crypto.Signer.
// It counts its calls, and when gated, every call past the first waits for
// the gate (a slow KMS) while the first one answers at once.
type remoteKey struct {
	key   crypto.Signer
	calls atomic.Int64
	fail  atomic.Bool
	gate  chan struct{} // nil: never wait
	slow  atomic.Int64  // which call waits for the gate (1-based); 0: none
	opts  atomic.Value  // the crypto.SignerOpts of the last call
}

func (k *remoteKey) Public() crypto.PublicKey { return k.key.Public() }

func (k *remoteKey) Sign(r io.Reader, digest []byte, o crypto.SignerOpts) ([]byte, error) {
	n := k.calls.Add(1)
	k.opts.Store(o)
	if n == k.slow.Load() {
		<-k.gate
	}
	if k.fail.Load() {
		return nil, errors.New("kms: projects/p/locations/l/keyRings/r/cryptoKeys/k unavailable")
	}
	return k.key.Sign(r, digest, o)
}

// publicOnly hides any method but crypto.Signer's, so nothing downstream
// can reach for the private key.
type publicOnly struct{ *remoteKey }

func mustKey(t testing.TB, k crypto.Signer, err error) crypto.Signer {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestPrivateKeySignerSignsAssertions(t *testing.T) {
	p384, err := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	ec384 := mustKey(t, p384, err)
	p256, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	ec256 := mustKey(t, p256, err)
	_, edPriv, err := ed25519.GenerateKey(rand.Reader)
	ed := mustKey(t, edPriv, err)
	cases := []struct {
		name    string
		key     crypto.Signer
		opts    []oauthclient.PrivateKeyOption
		wantAlg string
		pss     bool
	}{
		{"RSA PKCS#1 v1.5", testRSAKey(t), nil, "RS256", false},
		{"RSA-PSS", testRSAKey(t), []oauthclient.PrivateKeyOption{oauthclient.SigningAlgorithm("PS256")}, "PS256", true},
		{"RSA-PSS SHA-512", testRSAKey(t), []oauthclient.PrivateKeyOption{oauthclient.SigningAlgorithm("PS512")}, "PS512", true},
		{"ECDSA P-256", ec256, nil, "ES256", false},
		{"ECDSA P-384", ec384, nil, "ES384", false},
		{"Ed25519", ed, nil, "EdDSA", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			kms := &remoteKey{key: tc.key}
			s := newTokenServer(t)
			opts := append([]oauthclient.PrivateKeyOption{oauthclient.KeyID("kms-key-1")}, tc.opts...)
			c := newClient(t, s, newClock(), oauthclient.PrivateKeySigner(publicOnly{kms}, opts...))
			mustToken(t, newCC(t, c, "api"))
			if kms.calls.Load() != 1 {
				t.Fatalf("signer called %d times for one token request, want 1", kms.calls.Load())
			}
			if _, isPSS := kms.opts.Load().(*rsa.PSSOptions); isPSS != tc.pss {
				t.Fatalf("signer options %T, want PSS %v", kms.opts.Load(), tc.pss)
			}
			if o, ok := kms.opts.Load().(*rsa.PSSOptions); ok && o.SaltLength != rsa.PSSSaltLengthEqualsHash {
				t.Fatalf("PSS salt length %d, want the hash's length (RFC 7518 §3.5)", o.SaltLength)
			}
			f := s.form(0)
			tok, err := jwt.ParseSigned(f.Get("client_assertion"), []jose.SignatureAlgorithm{jose.SignatureAlgorithm(tc.wantAlg)})
			if err != nil {
				t.Fatalf("assertion does not parse as %s: %v", tc.wantAlg, err)
			}
			var cl jwt.Claims
			if err := tok.Claims(tc.key.Public(), &cl); err != nil {
				t.Fatalf("assertion signature: %v", err)
			}
			h := tok.Headers[0]
			if h.KeyID != "kms-key-1" || h.ExtraHeaders["typ"] != "client-authentication+jwt" || h.JSONWebKey != nil {
				t.Fatalf("header %+v", h)
			}
			if cl.Issuer != "svc-client" || cl.Subject != "svc-client" || cl.ID == "" || cl.Audience[0] != s.URL {
				t.Fatalf("claims %+v", cl)
			}
			if f.Get("client_id") != "svc-client" || f.Get("client_assertion_type") != "urn:ietf:params:oauth:client-assertion-type:jwt-bearer" || f.Has("client_secret") {
				t.Fatalf("form %v", f)
			}
		})
	}
}

func TestPrivateKeySignerWithCertificateThumbprint(t *testing.T) {
	key := testRSAKey(t)
	cert, der := certPEM(t, key)
	s := newTokenServer(t)
	c := newClient(t, s, newClock(), oauthclient.PrivateKeySigner(publicOnly{&remoteKey{key: key}}, oauthclient.Certificate(cert)))
	mustToken(t, newCC(t, c, "api"))
	_, h := verifyAssertion(t, s.form(0).Get("client_assertion"), &key.PublicKey)
	if h.ExtraHeaders["x5t#S256"] != testcert.Thumbprint(der) {
		t.Fatalf("x5t#S256 = %v", h.ExtraHeaders["x5t#S256"])
	}
}

func TestPrivateKeySignerRefusedAtConstruction(t *testing.T) {
	small, err := rsa.GenerateKey(rand.Reader, 1024)
	smallKey := mustKey(t, small, err)
	p224, err := ecdsa.GenerateKey(elliptic.P224(), rand.Reader)
	ec224 := mustKey(t, p224, err)
	otherKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	otherCert, _ := certPEM(t, otherKey)
	cases := []struct {
		name   string
		signer crypto.Signer
		opts   []oauthclient.PrivateKeyOption
		want   string
	}{
		{"nil signer", nil, nil, "oauthclient.PrivateKeySigner: the signer is nil"},
		{"RSA 1024", &remoteKey{key: smallKey}, nil, "oauthclient.PrivateKeySigner: RSA keys under 2048 bits"},
		{"P-224", &remoteKey{key: ec224}, nil, "oauthclient.PrivateKeySigner: unsupported key type"},
		{"an algorithm the key cannot sign", &remoteKey{key: testRSAKey(t)}, []oauthclient.PrivateKeyOption{oauthclient.SigningAlgorithm("ES256")}, "cannot sign with ES256"},
		{"HMAC", &remoteKey{key: testRSAKey(t)}, []oauthclient.PrivateKeyOption{oauthclient.SigningAlgorithm("HS256")}, "cannot sign with HS256"},
		{"certificate of another key", &remoteKey{key: testRSAKey(t)}, []oauthclient.PrivateKeyOption{oauthclient.Certificate(otherCert)}, "another key than oauthclient.PrivateKeySigner's"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := oauthclient.New(oauthclient.WithoutEnv(), oauthclient.Issuer("https://as.example"), oauthclient.ClientID("id"),
				oauthclient.PrivateKeySigner(tc.signer, tc.opts...))
			var ce *oauthclient.ConfigError
			if !errors.As(err, &ce) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want a ConfigError with %q", err, tc.want)
			}
		})
	}
}

func TestPrivateKeySignerFailureHidesTheSignersText(t *testing.T) {
	kms := &remoteKey{key: testRSAKey(t)}
	kms.fail.Store(true)
	s := newTokenServer(t)
	c := newClient(t, s, newClock(), oauthclient.PrivateKeySigner(kms))
	_, err := newCC(t, c, "api").Token(context.Background())
	var ce *oauthclient.ConfigError
	if !errors.As(err, &ce) || ce.Setting != "oauthclient.PrivateKeySigner" || !strings.Contains(err.Error(), "signing the client assertion failed") {
		t.Fatalf("err = %v, want a ConfigError naming oauthclient.PrivateKeySigner", err)
	}
	mustNotLeak(t, err, "projects/", "kms:")
	if s.count.Load() != 0 {
		t.Fatalf("%d token requests sent without an assertion", s.count.Load())
	}
}

// A KMS answering slowly holds up the fetch that waits for its signature
// and nothing else: another pattern's fetch signs and completes, and a
// cached token is served while its refresh waits for the signer.
func TestSlowSignerDelaysOnlyItsOwnFetch(t *testing.T) {
	kms := &remoteKey{key: testRSAKey(t), gate: make(chan struct{})}
	release := func() {
		select {
		case <-kms.gate:
		default:
			close(kms.gate)
		}
	}
	t.Cleanup(release)
	s := newTokenServer(t)
	s.expires = 100
	clk := newClock()
	c := newClient(t, s, clk, oauthclient.PrivateKeySigner(kms), oauthclient.RefreshBefore(50*time.Second))
	slow, quick := newCC(t, c, "slow"), newCC(t, c, "quick")

	// The slow pattern's first fetch makes the first Sign call, which waits.
	kms.slow.Store(1)
	slowDone := make(chan error, 1)
	go func() {
		_, err := slow.Token(context.Background())
		slowDone <- err
	}()
	eventually(t, "the slow pattern's fetch to reach the signer", func() bool { return kms.calls.Load() == 1 })

	// Another pattern's fetch is not queued behind it.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := quick.Token(ctx); err != nil {
		t.Fatalf("the other pattern's fetch waited for the slow signer: %v", err)
	}
	// A caller of the slow pattern that gives up gets its own context's
	// error; the fetch carries on.
	short, stop := context.WithCancel(context.Background())
	stop()
	if _, err := slow.Token(short); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if !oauthclient.InFlight(slow, "") {
		t.Fatal("the slow fetch stopped when a waiting caller gave up")
	}
	select {
	case err := <-slowDone:
		t.Fatalf("the slow fetch ended before its signature: %v", err)
	default:
	}
	release()
	if err := <-slowDone; err != nil {
		t.Fatalf("slow pattern: %v", err)
	}

	// Inside the refresh window the refresh waits for the signer in the
	// background; the cached token is served meanwhile.
	kms.gate = make(chan struct{})
	kms.slow.Store(kms.calls.Load() + 1)
	cached := mustToken(t, quick)
	clk.Advance(60 * time.Second)
	if got := mustToken(t, quick); got != cached {
		t.Fatalf("token %q in the refresh window, want the cached %q", got, cached)
	}
	eventually(t, "the refresh to reach the signer", func() bool { return kms.calls.Load() == kms.slow.Load() })
	for range 3 {
		if got := mustToken(t, quick); got != cached {
			t.Fatalf("token %q while the refresh signs, want the cached %q", got, cached)
		}
	}
	release()
	eventually(t, "the refresh to finish", func() bool { return !oauthclient.InFlight(quick, "") })
	if got := mustToken(t, quick); got == cached {
		t.Fatal("the refreshed token was not used")
	}
}

// A signer that never returns (a KMS call with no deadline of its own)
// does not hold Token callers past the client's Timeout: crypto.Signer
// takes no context, so the fetch stops waiting for it.
func TestHungSignerIsBoundedByTheTimeout(t *testing.T) {
	kms := &remoteKey{key: testRSAKey(t), gate: make(chan struct{})}
	kms.slow.Store(1)
	s := newTokenServer(t)
	c := newClient(t, s, newClock(), oauthclient.PrivateKeySigner(kms), oauthclient.Timeout(time.Second))
	t.Cleanup(func() { close(kms.gate) }) // before the client's Close
	err := tokenOrHang(t, newCC(t, c, "api"), "a hung signer")
	var ce *oauthclient.ConfigError
	if !errors.As(err, &ce) || ce.Setting != "oauthclient.PrivateKeySigner" || !strings.Contains(ce.Problem, "did not answer within the client's timeout") {
		t.Fatalf("err = %v, want a ConfigError naming the signer and the timeout", err)
	}
	if s.count.Load() != 0 {
		t.Fatal("a token request was sent without an assertion")
	}
}
