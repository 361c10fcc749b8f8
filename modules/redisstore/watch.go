package redisstore

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync"

	"github.com/redis/go-redis/v9"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.uber.org/zap"
)

// watch tells what a topology does under the stores: the MOVED and ASK
// redirections a Cluster answers (svc.redis.redirections) and the
// failovers the client sees (svc.redis.failovers, a warning each): on
// Sentinel a connection reaching another primary than the last one; on a
// Cluster a node that answered ROLE as a replica at an earlier readiness
// check and answers as a primary now.
type watch struct {
	c            *Client
	redirections metric.Int64Counter
	failovers    metric.Int64Counter
	moved, ask   metric.AddOption
	byMode       metric.AddOption

	mu      sync.Mutex
	primary string // Sentinel: the address of the last connection
	roles   roles  // Cluster: each node's role at the latest check
	checks  uint64 // Cluster: the checks begun
}

func newWatch(c *Client) *watch {
	m := otel.GetMeterProvider().Meter(meterScope)
	r, _ := m.Int64Counter("svc.redis.redirections", metric.WithUnit("{redirection}"),
		metric.WithDescription("MOVED and ASK answers of a Redis Cluster that the client followed, by svc.redis.redirection (moved, ask)."))
	f, _ := m.Int64Counter("svc.redis.failovers", metric.WithUnit("{failover}"),
		metric.WithDescription("Failovers the client saw: another primary took over (Sentinel) or a replica became a primary (Cluster), by svc.redis.mode."))
	w := &watch{c: c, redirections: r, failovers: f,
		moved:  metric.WithAttributeSet(attribute.NewSet(attribute.String("svc.redis.redirection", "moved"))),
		ask:    metric.WithAttributeSet(attribute.NewSet(attribute.String("svc.redis.redirection", "ask"))),
		byMode: metric.WithAttributeSet(attribute.NewSet(attribute.String("svc.redis.mode", c.cfg.Mode))),
	}
	switch rdb := c.rdb.(type) {
	case *redis.ClusterClient:
		rdb.OnNewNode(func(n *redis.Client) { n.AddHook(redirectHook{w}) })
	case *redis.Client:
		if c.cfg.Mode == modeSentinel {
			rdb.AddHook(primaryHook{w})
		}
	}
	return w
}

// failover counts and logs a change of primary.
func (w *watch) failover(ctx context.Context, from, to string) {
	w.failovers.Add(ctx, 1, w.byMode)
	w.c.log.Warn("svc.redis: a new primary took over (failover); the stores follow it",
		zap.String("svc.redis.mode", w.c.cfg.Mode), zap.String("svc.redis.from", from), zap.String("svc.redis.to", to))
}

// sawPrimary is the Sentinel's side: the address a new connection reached.
func (w *watch) sawPrimary(ctx context.Context, addr string) {
	w.mu.Lock()
	old := w.primary
	w.primary = addr
	w.mu.Unlock()
	if old != "" && old != addr {
		w.failover(ctx, old, addr)
	}
}

// primaryHook sees the connections of a Sentinel-managed client: go-redis
// dials the primary the sentinels name, whatever address it is given.
type primaryHook struct{ w *watch }

func (h primaryHook) DialHook(next redis.DialHook) redis.DialHook {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := next(ctx, network, addr)
		if err == nil && conn.RemoteAddr() != nil {
			h.w.sawPrimary(ctx, conn.RemoteAddr().String())
		}
		return conn, err
	}
}

func (primaryHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook { return next }

func (primaryHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

// redirectHook sees the answers of one Cluster node: a MOVED or an ASK is
// returned to the ClusterClient, which follows it.
type redirectHook struct{ w *watch }

func (redirectHook) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h redirectHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		h.see(ctx, err)
		return err
	}
}

func (h redirectHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		err := next(ctx, cmds)
		for _, c := range cmds {
			h.see(ctx, c.Err())
		}
		return err
	}
}

func (h redirectHook) see(ctx context.Context, err error) {
	var rerr redis.Error
	if err == nil || !errors.As(err, &rerr) {
		return
	}
	switch msg := rerr.Error(); {
	case strings.HasPrefix(msg, "MOVED "):
		h.w.redirections.Add(ctx, 1, h.w.moved)
	case strings.HasPrefix(msg, "ASK "):
		h.w.redirections.Add(ctx, 1, h.w.ask)
	}
}
