package redisstore

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"

	"github.com/redis/go-redis/v9"
)

// nodeView is what one Cluster node said of itself at a readiness check:
// its ROLE and its CLUSTER INFO, asked in one round trip.
type nodeView struct {
	addr    string
	err     error  // the node did not answer
	role    string // "master" or "slave"; empty when ROLE was refused
	of      string // a replica's primary, host:port
	stateOK bool   // CLUSTER INFO says cluster_state:ok (or was refused)
}

// roles is each node's role at the latest check, by address.
type roles struct {
	gen   uint64 // the check they are from
	nodes map[string]nodeView
}

// checkCluster is a Cluster's readiness: every node go-redis knows,
// primaries and replicas, is asked its ROLE and CLUSTER INFO under
// Timeout. It is ready while some primary answers and says the Cluster is
// ok. With cluster-require-full-coverage yes (Redis's default) a shard
// left without a primary makes every node say cluster_state:fail and
// refuse every key with CLUSTERDOWN: not ready. With it set to no the
// other shards keep serving their keys, the same on every replica of the
// service, so it stays ready (taking every replica out of the load
// balancer would only add an outage).
//
// The roles feed the failover count: a node that was a replica at an
// earlier check and is a primary now was promoted, once. A primary that
// misses one check (a slow PING under load) is no failover: counting the
// primaries that answered did that (issue 37).
func (c *Client) checkCluster(ctx context.Context, cc *redis.ClusterClient) error {
	gen := c.watch.nextCheck()
	var (
		mu    sync.Mutex
		views []nodeView
	)
	err := cc.ForEachShard(ctx, func(ctx context.Context, n *redis.Client) error {
		v := askNode(ctx, n)
		mu.Lock()
		views = append(views, v)
		mu.Unlock()
		return nil
	})
	if err != nil {
		return fmt.Errorf("no Cluster node answers with the slots' primaries: %w", err)
	}
	c.watch.sawRoles(ctx, gen, views)
	var primaries, down int
	var failed []error
	for _, v := range views {
		switch {
		case v.err != nil:
			failed = append(failed, fmt.Errorf("%s: %w", v.addr, v.err))
		case v.role == "slave":
		case !v.stateOK:
			primaries++
			down++
		default:
			primaries++
		}
	}
	switch {
	case primaries == 0:
		return fmt.Errorf("no Cluster primary answers: %w", errors.Join(failed...))
	case down == primaries:
		return errClusterDown
	}
	return nil
}

// errClusterDown is the readiness error of a Cluster whose primaries all
// say cluster_state:fail.
var errClusterDown = errors.New("the Cluster is down: every primary that answers says cluster_state:fail and refuses every key with CLUSTERDOWN " +
	"(a shard has no primary that answers; with cluster-require-full-coverage yes, Redis's default, that stops the whole Cluster)")

// askNode asks n its ROLE and CLUSTER INFO in one round trip. A command
// the node refuses (an ACL user without the permission) tells nothing,
// and is no failure.
func askNode(ctx context.Context, n *redis.Client) nodeView {
	v := nodeView{addr: n.Options().Addr, stateOK: true}
	var role *redis.Cmd
	var info *redis.StringCmd
	_, err := n.Pipelined(ctx, func(p redis.Pipeliner) error {
		role = p.Do(ctx, "ROLE")
		info = p.ClusterInfo(ctx)
		return nil
	})
	var reply redis.Error
	if err != nil && !errors.As(err, &reply) {
		v.err = err
		return v
	}
	if s, err := info.Result(); err == nil {
		v.stateOK = strings.Contains(s, "cluster_state:ok")
	}
	r, err := role.Slice()
	if err != nil || len(r) == 0 {
		return v
	}
	v.role, _ = r[0].(string)
	if v.role == "slave" && len(r) >= 3 {
		host, _ := r[1].(string)
		port, _ := r[2].(int64)
		v.of = net.JoinHostPort(host, strconv.FormatInt(port, 10))
	}
	return v
}

// nextCheck numbers a Cluster check, so that the roles of a slow check
// never overwrite those of a later one (which would count one promotion
// twice).
func (w *watch) nextCheck() uint64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.checks++
	return w.checks
}

// sawRoles is the Cluster's side of the failover count: a node that was a
// replica and answers as a primary now was promoted in place of the
// primary it replicated, the node that left.
func (w *watch) sawRoles(ctx context.Context, gen uint64, views []nodeView) {
	type promotion struct{ from, to string }
	var promoted []promotion
	w.mu.Lock()
	if gen < w.roles.gen {
		w.mu.Unlock()
		return
	}
	if w.roles.nodes == nil {
		w.roles.nodes = map[string]nodeView{}
	}
	for _, v := range views {
		if v.err != nil || v.role == "" {
			continue // what it was is still the best knowledge
		}
		if old, ok := w.roles.nodes[v.addr]; ok && old.role == "slave" && v.role == "master" {
			promoted = append(promoted, promotion{from: old.of, to: v.addr})
		}
		w.roles.nodes[v.addr] = v
	}
	w.roles.gen = gen
	w.mu.Unlock()
	for _, p := range promoted {
		w.failover(ctx, p.from, p.to)
	}
}
