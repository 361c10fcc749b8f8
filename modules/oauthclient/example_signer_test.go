package oauthclient_test

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/svckit/svc/modules/oauthclient"
)

// kmsAPI is the slice of a cloud KMS client the signer needs; a real
// program passes the SDK's client (Google Cloud KMS AsymmetricSign, AWS
// KMS Sign, Azure Key Vault Sign, a PKCS#11 session). svc imports none.
type kmsAPI interface {
	// AsymmetricSign signs a digest with the named key and returns the
	// signature as the KMS encodes it (ASN.1 DER for ECDSA, as
	// crypto.Signer does).
	AsymmetricSign(ctx context.Context, keyName string, digest []byte) ([]byte, error)
}

// kmsKey is a crypto.Signer whose private half never leaves the KMS.
type kmsKey struct {
	api     kmsAPI
	name    string           // e.g. projects/p/locations/l/keyRings/r/cryptoKeys/k/cryptoKeyVersions/1
	public  crypto.PublicKey // read once from the KMS at start
	timeout time.Duration
}

func (k *kmsKey) Public() crypto.PublicKey { return k.public }

// Sign is called once per token request, with the SHA-256 digest of the
// assertion for an ES256 or RS256 key. The client calls it with no
// deadline, so the signer bounds its own remote call.
func (k *kmsKey) Sign(_ io.Reader, digest []byte, opts crypto.SignerOpts) ([]byte, error) {
	if opts.HashFunc() != crypto.SHA256 {
		return nil, errors.New("kmsKey: this key version signs SHA-256 digests only")
	}
	ctx, cancel := context.WithTimeout(context.Background(), k.timeout)
	defer cancel()
	return k.api.AsymmetricSign(ctx, k.name, digest)
}

// fakeKMS stands in for the cloud SDK's client: a P-256 key in memory.
type fakeKMS struct{ key *ecdsa.PrivateKey }

func (f fakeKMS) AsymmetricSign(_ context.Context, _ string, digest []byte) ([]byte, error) {
	return ecdsa.SignASN1(rand.Reader, f.key, digest)
}

// The client authenticates with private_key_jwt signed by a key held in a
// KMS: the private key never enters the process. Register the key's
// public half with the authorization server; the rest of the client's
// settings come from SVC_OAUTHCLIENT_* (here, options).
func ExamplePrivateKeySigner() {
	// A stand-in for the authorization server's token endpoint, on
	// 127.0.0.1: it says how the client authenticated.
	tokenEndpoint := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		encoded, _, _ := strings.Cut(r.PostForm.Get("client_assertion"), ".")
		header, _ := base64.RawURLEncoding.DecodeString(encoded)
		fmt.Println(r.PostForm.Get("client_assertion_type"))
		fmt.Println(string(header))
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"access_token":"at-1","token_type":"Bearer","expires_in":300}`))
	}))
	defer tokenEndpoint.Close()

	kms, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		panic(err)
	}
	var (
		api    kmsAPI           = fakeKMS{kms} // the cloud SDK's client
		public crypto.PublicKey = kms.Public() // its GetPublicKey answer, parsed
	)
	key := &kmsKey{api: api, name: "projects/p/locations/l/keyRings/r/cryptoKeys/svc/cryptoKeyVersions/1", public: public, timeout: 5 * time.Second}
	c, err := oauthclient.New(
		oauthclient.Issuer(tokenEndpoint.URL),        // SVC_OAUTHCLIENT_ISSUER
		oauthclient.TokenEndpoint(tokenEndpoint.URL), // SVC_OAUTHCLIENT_TOKEN_ENDPOINT
		oauthclient.ClientID("svc"),                  // SVC_OAUTHCLIENT_CLIENT_ID
		oauthclient.PrivateKeySigner(key, oauthclient.KeyID("svc-kms-1")),
	)
	if err != nil {
		// A key the client cannot use (RSA under 2048 bits, a curve other
		// than P-256/384/521) fails here, before the first fetch.
		panic(err)
	}
	ctx := context.Background()
	if err := c.Open(ctx); err != nil {
		panic(err)
	}
	defer c.Close(ctx)

	billing, err := oauthclient.ClientCredentials("billing", oauthclient.WithClient(c))
	if err != nil {
		panic(err)
	}
	if _, err := billing.Token(ctx); err != nil {
		panic(err)
	}
	// Output:
	// urn:ietf:params:oauth:client-assertion-type:jwt-bearer
	// {"alg":"ES256","kid":"svc-kms-1","typ":"client-authentication+jwt"}
}
