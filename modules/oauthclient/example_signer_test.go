package oauthclient_test

import (
	"context"
	"crypto"
	"errors"
	"io"
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

// The client authenticates with private_key_jwt signed by a key held in a
// KMS: the private key never enters the process. Register the key's
// public half with the authorization server; the rest of the client's
// settings come from SVC_OAUTHCLIENT_*.
func ExamplePrivateKeySigner() {
	var (
		api    kmsAPI           // the cloud SDK's client
		public crypto.PublicKey // its GetPublicKey answer, parsed
	)
	key := &kmsKey{api: api, name: "projects/p/locations/l/keyRings/r/cryptoKeys/svc/cryptoKeyVersions/1", public: public, timeout: 5 * time.Second}
	c, err := oauthclient.New(oauthclient.PrivateKeySigner(key, oauthclient.KeyID("svc-kms-1")))
	if err != nil {
		// A key the client cannot use (RSA under 2048 bits, a curve other
		// than P-256/384/521) fails here, before the first fetch.
		return
	}
	defer c.Close(context.Background())
}
