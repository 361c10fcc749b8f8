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

// Check sends one round trip, bounded by Timeout, as Open and
// fxredis.Redis do at start and /readyz does on every probe, and explains
// a failure to the operator:
//
//   - single mode: PING, and INFO, refusing a server SVC_REDIS_MODE does
//     not fit (a Cluster node, a sentinel, a replica), naming the mode to
//     set;
//   - sentinel mode: PING to the primary the sentinels name; when the
//     sentinels that answer know no primary of the URL's master_name, it
//     says so;
//   - cluster mode: ROLE and CLUSTER INFO to every node; it fails when no
//     primary answers, or when every primary that answers says the
//     Cluster is down (cluster_state:fail: a shard without a primary,
//     under cluster-require-full-coverage yes, Redis's default).
//
// The error names SVC_REDIS_URL (its credentials masked), matches
// ErrAuthRefused when Redis refused the credentials, and points to
// SVC_REDIS_TLS_CA_FILE when the server's certificate is signed by a CA
// the client does not trust. It never repeats the password.
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
	var wrong *wrongTopology
	switch {
	case errors.As(cause, &wrong):
		return fmt.Errorf("redisstore: SVC_REDIS_URL %s %w", c.cfg.URL, wrong)
	case errors.Is(cause, errClusterDown):
		return fmt.Errorf("redisstore: SVC_REDIS_URL %s: %w", c.cfg.URL, errClusterDown)
	case c.cfg.Mode == modeSentinel && errors.Is(cause, redis.Nil):
		// go-redis joins each sentinel's answer, redis.Nil for a name it
		// does not monitor, one a line.
		return fmt.Errorf("redisstore: SVC_REDIS_URL %s: the sentinels know no primary named %q: set master_name to the name of their `sentinel monitor` line (SVC_REDIS_MODE=sentinel)",
			c.cfg.URL, c.Topology().MasterName)
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
