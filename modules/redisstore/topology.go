package redisstore

import (
	"crypto/tls"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// The values of SVC_REDIS_MODE ([Config].Mode).
const (
	modeSingle   = "single"
	modeSentinel = "sentinel"
	modeCluster  = "cluster"
)

// maxRedirects is how many MOVED or ASK answers (or dial failures) a
// Cluster client follows for one operation, within Timeout.
const maxRedirects = 3

// topology is what New builds for cfg.Mode: the client and the passwords
// its URL holds (masked in go-redis's log lines).
type topology struct {
	rdb       redis.UniversalClient
	passwords []string
}

// timeouts are the pool's bounds, the same in every mode (see New).
type timeouts struct {
	dial, pool, read time.Duration
}

func timeoutsOf(cfg Config) timeouts {
	// Half each for the wait for a pooled connection and for a dial: go-redis
	// waits for a new connection on the context's Done, which the deadline
	// of Client.do does not close, so these two bound that wait, and the
	// I/O after them stops at the operation's deadline.
	return timeouts{dial: cfg.Timeout / 2, pool: cfg.Timeout / 2, read: cfg.Timeout}
}

// newTopology builds the go-redis client of cfg.Mode. go-redis's parse
// errors may quote the URL, so they are replaced by one naming the
// variable with the URL masked.
func newTopology(cfg Config) (topology, error) {
	t := timeoutsOf(cfg)
	switch cfg.Mode {
	case modeSentinel:
		o, err := redis.ParseFailoverURL(cfg.URL.Value())
		if err != nil {
			return topology{}, badURL(cfg, "go-redis's Sentinel form, redis://sentinel:port?master_name=name&addr=sentinel2:port")
		}
		if o.MasterName == "" {
			return topology{}, fmt.Errorf("redisstore: SVC_REDIS_URL %s names no primary: SVC_REDIS_MODE=sentinel needs ?master_name=<the name the sentinels monitor>", cfg.URL)
		}
		o.PoolSize = cfg.PoolSize
		o.DialTimeout, o.PoolTimeout, o.ReadTimeout, o.WriteTimeout = t.dial, t.pool, t.read, t.read
		o.MaxRetries, o.DialerRetries, o.ContextTimeoutEnabled = -1, 1, true
		if o.TLSConfig, err = tlsConfig(cfg, o.TLSConfig); err != nil {
			return topology{}, err
		}
		return topology{rdb: redis.NewFailoverClient(o), passwords: []string{o.Password, o.SentinelPassword}}, nil
	case modeCluster:
		if p := urlPath(cfg.URL.Value()); p != "" && p != "/" && p != "/0" {
			return topology{}, fmt.Errorf("redisstore: SVC_REDIS_URL %s names a database: a Cluster (SVC_REDIS_MODE=cluster) has database 0 only", cfg.URL)
		}
		o, err := redis.ParseClusterURL(cfg.URL.Value())
		if err != nil {
			return topology{}, badURL(cfg, "go-redis's Cluster form, redis://node:port?addr=node2:port&addr=node3:port")
		}
		o.PoolSize = cfg.PoolSize
		o.DialTimeout, o.PoolTimeout, o.ReadTimeout, o.WriteTimeout = t.dial, t.pool, t.read, t.read
		o.MaxRetries, o.DialerRetries, o.MaxRedirects = -1, 1, maxRedirects
		if o.TLSConfig != nil && o.TLSConfig.MinVersion == 0 {
			o.TLSConfig.MinVersion = tls.VersionTLS12
		}
		if o.TLSConfig, err = tlsConfig(cfg, o.TLSConfig); err != nil {
			return topology{}, err
		}
		return topology{rdb: redis.NewClusterClient(o), passwords: []string{o.Password}}, nil
	default:
		o, err := redis.ParseURL(cfg.URL.Value())
		if err != nil {
			return topology{}, badURL(cfg, "a redis:// or rediss:// URL go-redis reads")
		}
		o.PoolSize = cfg.PoolSize
		o.DialTimeout, o.PoolTimeout, o.ReadTimeout, o.WriteTimeout = t.dial, t.pool, t.read, t.read
		// No retries: a retried script could spend a budget twice, and each
		// retry would stretch the wait past Timeout. One dial per attempt:
		// retried dials (5 by default) only add to the wait of a request
		// while Redis is down.
		o.MaxRetries, o.DialerRetries, o.ContextTimeoutEnabled = -1, 1, true
		if o.TLSConfig, err = tlsConfig(cfg, o.TLSConfig); err != nil {
			return topology{}, err
		}
		return topology{rdb: redis.NewClient(o), passwords: []string{o.Password}}, nil
	}
}

func badURL(cfg Config, want string) error {
	return fmt.Errorf("redisstore: SVC_REDIS_URL %s is not %s (SVC_REDIS_MODE=%s)", cfg.URL, want, cfg.Mode)
}

func urlPath(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return u.Path
}

// validMode reports whether m is a value of SVC_REDIS_MODE.
func validMode(m string) bool {
	return m == modeSingle || m == modeSentinel || m == modeCluster
}

var modes = strings.Join([]string{modeSingle, modeSentinel, modeCluster}, ", ")

// Topology is what a [Client] is connected to, as its start line and its
// errors name it: no credential, no query but the names below.
type Topology struct {
	// Mode is the Config's Mode.
	Mode string
	// Addrs are the addresses SVC_REDIS_URL names: the server, the
	// sentinels, or the Cluster nodes the client starts from.
	Addrs []string
	// MasterName is the name of the primary the sentinels follow
	// (sentinel mode only).
	MasterName string
}

// Topology returns what c is connected to.
func (c *Client) Topology() Topology {
	t := Topology{Mode: c.cfg.Mode}
	u, err := url.Parse(c.cfg.URL.Value())
	if err != nil {
		return t
	}
	t.Addrs = append(t.Addrs, u.Host)
	if c.cfg.Mode == modeSingle {
		return t
	}
	q := u.Query()
	t.Addrs = append(t.Addrs, q["addr"]...)
	if c.cfg.Mode == modeSentinel {
		t.MasterName = q.Get("master_name")
	}
	return t
}
