package redisstore

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/redis/go-redis/v9"
)

// ErrAuthRefused is matched (errors.Is) by the error of Open and Check
// when Redis refused the credentials of SVC_REDIS_URL: a wrong password,
// or an ACL user that is unknown or disabled.
var ErrAuthRefused = errors.New("Redis refused authentication (wrong password, or an unknown or disabled ACL user)")

// tlsConfig is the TLS configuration of a rediss:// URL: base (go-redis's,
// naming the URL's host) or a clone of cfg.TLS, with the CAs of
// cfg.TLSCAFile when set. It is nil for redis:// (validate refused TLS
// settings there).
func tlsConfig(cfg Config, base *tls.Config) (*tls.Config, error) {
	if base == nil {
		return nil, nil
	}
	t := base
	if cfg.TLS != nil {
		t = cfg.TLS.Clone()
		if t.ServerName == "" {
			t.ServerName = base.ServerName
		}
		if t.MinVersion == 0 {
			t.MinVersion = base.MinVersion
		}
		// ?skip_verify=true in the URL still applies.
		t.InsecureSkipVerify = t.InsecureSkipVerify || base.InsecureSkipVerify
	}
	if cfg.TLSCAFile == "" {
		return t, nil
	}
	raw, err := os.ReadFile(cfg.TLSCAFile)
	if err != nil {
		return nil, fmt.Errorf("redisstore: SVC_REDIS_TLS_CA_FILE: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(raw) {
		return nil, fmt.Errorf("redisstore: SVC_REDIS_TLS_CA_FILE %s holds no PEM certificate", cfg.TLSCAFile)
	}
	t = t.Clone()
	t.RootCAs = pool
	return t, nil
}

// Check sends one PING, bounded by Timeout, as Open and fxredis.Redis do
// at start and /readyz does on every probe (to the primary the sentinels
// name in sentinel mode; to every primary in cluster mode, where it fails
// only when none answers), and explains
// a failure to the operator: the error names SVC_REDIS_URL (its
// credentials masked), matches ErrAuthRefused when Redis refused the
// credentials, and points to SVC_REDIS_TLS_CA_FILE when the server's
// certificate is signed by a CA the client does not trust. It never
// repeats the password.
func (c *Client) Check(ctx context.Context) error {
	err := c.ping(ctx)
	if err == nil {
		return nil
	}
	var u *unavailable
	cause := err
	if errors.As(err, &u) {
		cause = u.Err
	}
	var rerr redis.Error
	if errors.As(cause, &rerr) && isAuthRefusal(rerr.Error()) {
		return fmt.Errorf("redisstore: SVC_REDIS_URL %s: %w: %w", c.cfg.URL, ErrAuthRefused, cause)
	}
	var unknownCA x509.UnknownAuthorityError
	if errors.As(cause, &unknownCA) {
		return fmt.Errorf("redisstore: SVC_REDIS_URL %s: the server's certificate is signed by a CA this client does not trust: set SVC_REDIS_TLS_CA_FILE to that CA's PEM file: %w", c.cfg.URL, err)
	}
	if errors.As(cause, &rerr) {
		// An answer, not a silence: the reply says what to fix (such as
		// "ERR DB index is out of range" for a database number the server
		// does not have).
		return fmt.Errorf("redisstore: SVC_REDIS_URL %s: Redis answered PING with an error: %w", c.cfg.URL, cause)
	}
	return fmt.Errorf("redisstore: SVC_REDIS_URL %s does not answer PING: %w", c.cfg.URL, err)
}

// isAuthRefusal tells the replies of a refused login: WRONGPASS (a wrong
// password, or an unknown or disabled user) and NOAUTH (no credentials
// given where some are required).
func isAuthRefusal(reply string) bool {
	return strings.HasPrefix(reply, "WRONGPASS") || strings.HasPrefix(reply, "NOAUTH")
}
