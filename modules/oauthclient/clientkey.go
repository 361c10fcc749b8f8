package oauthclient

import (
	"context"
	"crypto/hkdf"
	"crypto/sha256"
	"net/http"
	"net/url"

	"github.com/svckit/svc/internal/clientkey"
)

func init() {
	clientkey.Derive = func(client any, info string, size int) ([]byte, bool, error) {
		return client.(*Client).deriveKey(info, size)
	}
	clientkey.Authenticate = func(client any, ctx context.Context, header http.Header, form url.Values) error {
		return client.(*Client).authenticate(ctx, header, form)
	}
	clientkey.ClientID = func(client any) string { return client.(*Client).clientID }
}

// deriveKey derives a key from the client secret (read again from its file
// on every call, so a rotated secret derives a new key): HKDF-SHA256 with
// no salt, the secret being the only input the replicas share, and info
// naming the purpose. A client without a shared secret derives nothing.
func (c *Client) deriveKey(info string, size int) ([]byte, bool, error) {
	if _, shared := c.auth.(secretAuth); !shared {
		return nil, false, nil
	}
	s, err := c.secret()
	if err != nil {
		return nil, false, err
	}
	key, err := hkdf.Key(sha256.New, []byte(s.Value()), nil, info, size)
	if err != nil {
		return nil, false, err
	}
	return key, true, nil
}
