package oauthclient

import (
	"crypto/hkdf"
	"crypto/sha256"
)

// DeriveKey returns size bytes derived from the client secret (read again
// from its file on every call, so a rotated secret derives a new key):
// HKDF-SHA256 with no salt, the secret being the only input the service's
// replicas share, and info naming the purpose, so that keys for two
// purposes never coincide. ok is false for a client that authenticates
// without a shared secret (private_key_jwt, tls_client_auth); err is a
// secret file that cannot be read, naming the setting, never the secret.
// The secret itself never leaves the client. authn uses it to
// authenticate the introspection answers replicas share on Redis.
func (c *Client) DeriveKey(info string, size int) (key []byte, ok bool, err error) {
	if _, shared := c.auth.(secretAuth); !shared {
		return nil, false, nil
	}
	s, err := c.secret()
	if err != nil {
		return nil, false, err
	}
	key, err = hkdf.Key(sha256.New, []byte(s.Value()), nil, info, size)
	if err != nil {
		return nil, false, err
	}
	return key, true, nil
}
