package redistest

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// MasterName is the name the sentinels of [StartSentinel] monitor.
const MasterName = "svc"

// SetTimeout bounds how long StartSentinel and StartCluster wait for the
// set to form, and WaitPromoted for a failover.
const SetTimeout = 60 * time.Second

// Sentinel is a Sentinel set owned by one test: a primary, two replicas
// and three sentinels (quorum two), each its own process on loopback.
type Sentinel struct {
	// Data are the primary (first, at start) and its two replicas.
	Data []*Server
	// Sentinels are the three sentinels.
	Sentinels []*Server
	// URL is the set in go-redis's Sentinel form (SVC_REDIS_MODE=sentinel),
	// with the data nodes' password in ?password= when they ask for one.
	URL string
}

// StartSentinel starts a Sentinel set for t and stops it when t ends; opts
// apply to the data nodes (engine, password). The sentinels notice a
// primary gone after one second and promote a replica.
func StartSentinel(t testing.TB, opts ...Option) *Sentinel {
	t.Helper()
	// A replica syncs at once, not after the default five seconds.
	opts = append(opts[:len(opts):len(opts)], extra("--repl-diskless-sync-delay", "0"))
	primary := Start(t, opts...)
	set := &Sentinel{Data: []*Server{primary}}
	host, port := splitAddr(primary.Addr)
	auth := []string{}
	if primary.Password != "" {
		auth = append(auth, "--masterauth", primary.Password)
		if primary.User != "" {
			auth = append(auth, "--masteruser", primary.User)
		}
	}
	for range 2 {
		set.Data = append(set.Data, Start(t, append(opts, extra(append([]string{"--replicaof", host, port}, auth...)...))...))
	}
	conf := fmt.Sprintf("sentinel monitor %s %s %s 2\nsentinel down-after-milliseconds %[1]s 1000\nsentinel failover-timeout %[1]s 15000\nsentinel parallel-syncs %[1]s 2\n",
		MasterName, host, port)
	if primary.Password != "" {
		conf += fmt.Sprintf("sentinel auth-pass %s %s\n", MasterName, primary.Password)
		if primary.User != "" {
			conf += fmt.Sprintf("sentinel auth-user %s %s\n", MasterName, primary.User)
		}
	}
	engine := func(o *options) { o.engine = primary.cfg.engine }
	var addrs []string
	for range 3 {
		s := startWith(t, func(s *Server) error {
			s.sentinel = s.dir + "/sentinel.conf"
			return os.WriteFile(s.sentinel, []byte(conf), 0o600)
		}, engine)
		set.Sentinels = append(set.Sentinels, s)
		addrs = append(addrs, s.Addr)
	}
	q := url.Values{"master_name": {MasterName}, "addr": addrs[1:]}
	if primary.Password != "" {
		q.Set("password", primary.Password)
		if primary.User != "" {
			q.Set("username", primary.User)
		}
	}
	set.URL = (&url.URL{Scheme: "redis", Host: addrs[0], RawQuery: q.Encode()}).String()
	// Ready when every sentinel knows both replicas and the others.
	waitFor(t, "the sentinels to see the set", func(ctx context.Context) error {
		for _, s := range set.Sentinels {
			c := redis.NewSentinelClient(&redis.Options{Addr: s.Addr})
			m, err := c.Master(ctx, MasterName).Result()
			_ = c.Close()
			if err != nil {
				return err
			}
			if m["num-slaves"] != "2" || m["num-other-sentinels"] != "2" {
				return fmt.Errorf("sentinel %s sees %s replicas and %s other sentinels", s.Addr, m["num-slaves"], m["num-other-sentinels"])
			}
		}
		for _, d := range set.Data[1:] {
			if err := synced(ctx, d); err != nil {
				return err
			}
		}
		return nil
	})
	return set
}

// PrimaryAddr returns the address the sentinels name as the primary.
func (s *Sentinel) PrimaryAddr(ctx context.Context) (string, error) {
	var last error
	for _, sn := range s.Sentinels {
		c := redis.NewSentinelClient(&redis.Options{Addr: sn.Addr})
		a, err := c.GetMasterAddrByName(ctx, MasterName).Result()
		_ = c.Close()
		if err == nil && len(a) == 2 {
			return a[0] + ":" + a[1], nil
		}
		last = err
	}
	return "", fmt.Errorf("no sentinel names a primary: %v", last)
}

// KillPrimary kills the current primary (as a crash would) and returns it.
func (s *Sentinel) KillPrimary(t testing.TB) *Server {
	t.Helper()
	addr, err := s.PrimaryAddr(t.Context())
	if err != nil {
		t.Fatalf("redistest: %v", err)
	}
	for _, d := range s.Data {
		if d.Addr == addr {
			d.Stop()
			return d
		}
	}
	t.Fatalf("redistest: the primary %s is none of the set's data nodes", addr)
	return nil
}

// WaitPromoted waits until the sentinels name a primary other than old and
// that primary answers as one, and returns the time it saw that.
func (s *Sentinel) WaitPromoted(t testing.TB, old string) time.Time {
	t.Helper()
	waitFor(t, "a replica to be promoted", func(ctx context.Context) error {
		a, err := s.PrimaryAddr(ctx)
		if err != nil {
			return err
		}
		if a == old {
			return fmt.Errorf("the sentinels still name %s", old)
		}
		for _, d := range s.Data {
			if d.Addr == a {
				return roleIs(ctx, d, "master")
			}
		}
		return fmt.Errorf("the sentinels name %s, none of the set", a)
	})
	return time.Now()
}

// Cluster is a Redis Cluster owned by one test: three primaries, each
// with one replica (none with [NoReplicas]), each its own process on
// loopback.
type Cluster struct {
	Nodes []*Server
	// URL is the Cluster in go-redis's form (SVC_REDIS_MODE=cluster),
	// naming every node.
	URL string
}

// StartCluster starts a Cluster for t and stops it when t ends; opts
// apply to every node (engine). It needs redis-cli (Debian's
// redis-tools) to create the Cluster. A replica takes over a primary
// gone for two seconds.
func StartCluster(t testing.TB, opts ...Option) *Cluster {
	t.Helper()
	cli := lookPath("redis-cli")
	if cli == "" {
		cli = lookPath("valkey-cli")
	}
	if cli == "" {
		if os.Getenv("CI") != "" {
			t.Fatalf("redistest: neither redis-cli nor valkey-cli is on PATH and CI is set: install redis-tools (.ci/run does)")
		}
		t.Skip("redistest: redis-cli is not on PATH; install it (Debian package redis-tools) to run the Cluster tests")
	}
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	nodes, replicas := 6, "1"
	if o.noReplicas {
		nodes, replicas = 3, "0"
	}
	c := &Cluster{}
	for range nodes {
		n := startWith(t, func(s *Server) error {
			bus, err := freePort()
			if err != nil {
				return err
			}
			s.extra = []string{"--cluster-enabled", "yes", "--cluster-config-file", s.dir + "/nodes.conf",
				"--cluster-node-timeout", "2000", "--cluster-port", strconv.Itoa(bus),
				"--repl-diskless-sync-delay", "0"}
			// A replica authenticates to its primary as clients do.
			if s.Password != "" {
				s.extra = append(s.extra, "--masterauth", s.Password)
				if s.User != "" {
					s.extra = append(s.extra, "--masteruser", s.User)
				}
			}
			return nil
		}, opts...)
		c.Nodes = append(c.Nodes, n)
	}
	args := []string{"--cluster", "create"}
	for _, n := range c.Nodes {
		args = append(args, n.Addr)
	}
	args = append(args, "--cluster-replicas", replicas, "--cluster-yes")
	if c.Nodes[0].Password != "" {
		args = append(args, "-a", c.Nodes[0].Password, "--no-auth-warning")
		if c.Nodes[0].User != "" {
			args = append(args, "--user", c.Nodes[0].User)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), SetTimeout)
	defer cancel()
	if out, err := exec.CommandContext(ctx, cli, args...).CombinedOutput(); err != nil {
		t.Fatalf("redistest: %s --cluster create: %v: %s", cli, err, out)
	}
	u := url.URL{Scheme: "redis", Host: c.Nodes[0].Addr}
	if n := c.Nodes[0]; n.Password != "" {
		u.User = url.UserPassword(n.User, n.Password)
	}
	q := url.Values{}
	for _, n := range c.Nodes[1:] {
		q.Add("addr", n.Addr)
	}
	u.RawQuery = q.Encode()
	c.URL = u.String()
	waitFor(t, "the Cluster to be ok on every node and every replica in sync", func(ctx context.Context) error {
		for _, n := range c.Nodes {
			if err := clusterOK(ctx, n); err != nil {
				return err
			}
			if err := synced(ctx, n); err != nil {
				return err
			}
		}
		return nil
	})
	return c
}

// PrimaryOf returns the node that is the primary of key's slot now, as
// the running nodes tell.
func (c *Cluster) PrimaryOf(t testing.TB, key string) *Server {
	t.Helper()
	cc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: c.running(), Username: c.Nodes[0].User, Password: c.Nodes[0].Password})
	defer cc.Close()
	var addr string
	waitFor(t, "the primary of "+key, func(ctx context.Context) error {
		m, err := cc.MasterForKey(ctx, key)
		if err != nil {
			return err
		}
		addr = m.Options().Addr
		return nil
	})
	for _, n := range c.Nodes {
		if n.Addr == addr {
			return n
		}
	}
	t.Fatalf("redistest: the primary of %q, %s, is none of the Cluster's nodes", key, addr)
	return nil
}

// WaitOK waits until every running node says the Cluster is ok and that
// the slot of key has a primary other than old.
func (c *Cluster) WaitOK(t testing.TB, key, old string) time.Time {
	t.Helper()
	waitFor(t, "the Cluster to recover", func(ctx context.Context) error {
		for _, n := range c.Nodes {
			if n.running() {
				if err := clusterOK(ctx, n); err != nil {
					return err
				}
			}
		}
		cc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: c.running(), Username: c.Nodes[0].User, Password: c.Nodes[0].Password})
		defer cc.Close()
		m, err := cc.MasterForKey(ctx, key)
		if err != nil {
			return err
		}
		if a := m.Options().Addr; a == old {
			return fmt.Errorf("%s still serves %q", a, key)
		}
		return nil
	})
	return time.Now()
}

func (c *Cluster) running() []string {
	var a []string
	for _, n := range c.Nodes {
		if n.running() {
			a = append(a, n.Addr)
		}
	}
	return a
}

func (s *Server) running() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cmd != nil
}

func (s *Server) client() *redis.Client {
	return redis.NewClient(&redis.Options{Addr: s.Addr, Username: s.User, Password: s.Password, MaxRetries: -1})
}

func clusterOK(ctx context.Context, n *Server) error {
	c := n.client()
	defer c.Close()
	info, err := c.ClusterInfo(ctx).Result()
	if err != nil {
		return err
	}
	if !strings.Contains(info, "cluster_state:ok") {
		nodes, _ := c.ClusterNodes(ctx).Result()
		return fmt.Errorf("%s: cluster_state is not ok; CLUSTER NODES:\n%s", n.Addr, nodes)
	}
	return nil
}

// synced is nil for a primary, and for a replica whose link to its
// primary is up (its first sync done).
func synced(ctx context.Context, n *Server) error {
	c := n.client()
	defer c.Close()
	info, err := c.Info(ctx, "replication").Result()
	if err != nil {
		return err
	}
	if strings.Contains(info, "role:slave") && !strings.Contains(info, "master_link_status:up") {
		return fmt.Errorf("the replica %s has not synced", n.Addr)
	}
	return nil
}

func roleIs(ctx context.Context, n *Server, role string) error {
	c := n.client()
	defer c.Close()
	r, err := c.Do(ctx, "ROLE").Slice()
	if err != nil {
		return err
	}
	if len(r) == 0 || r[0] != role {
		return fmt.Errorf("%s is %v, not %s", n.Addr, r, role)
	}
	return nil
}

// waitFor polls cond every 100ms until it returns nil, failing t after
// SetTimeout with its last error.
func waitFor(t testing.TB, what string, cond func(context.Context) error) {
	t.Helper()
	deadline := time.Now().Add(SetTimeout)
	var err error
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		err = cond(ctx)
		cancel()
		if err == nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("redistest: waiting for %s: %v", what, err)
}

func splitAddr(addr string) (host, port string) {
	i := strings.LastIndexByte(addr, ':')
	return addr[:i], addr[i+1:]
}

// extra adds arguments to a server's command line.
func extra(args ...string) Option {
	return func(o *options) { o.extra = append(o.extra, args...) }
}
