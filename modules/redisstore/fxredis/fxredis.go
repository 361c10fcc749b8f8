// Package fxredis is the fx wiring of modules/redisstore: [Redis] from the
// environment, or [Config] with the settings in code. It lives apart from
// fxsvc so that an app without Redis links no Redis client.
package fxredis

import (
	"context"
	"fmt"
	"os"
	"strings"

	"go.uber.org/fx"
	"go.uber.org/zap"

	"github.com/svckit/svc/fxsvc"
	"github.com/svckit/svc/internal/kitlog"
	"github.com/svckit/svc/lifecycle"
	"github.com/svckit/svc/modules/redisstore"
	"github.com/svckit/svc/modules/store"
)

type redisIn struct {
	fx.In
	Lifecycle fx.Lifecycle
	Logger    *zap.Logger     `optional:"true"`
	Fallback  kitlog.Fallback `optional:"true"`
}

// logger is the app's own logger, else the kit's default one (so that an
// app with no logger still reads Redis's warnings: never zap.L(), which
// discards); its error is a bad SVC_LOG_* setting.
func (in redisIn) logger() (*zap.Logger, error) {
	switch {
	case in.Logger != nil:
		return in.Logger, nil
	case in.Fallback != nil:
		return in.Fallback()
	}
	return fxsvc.DefaultLogger()
}

// Redis connects the app to Redis from SVC_REDIS_* (see
// redisstore.FromEnv) and puts the shared state of the components behind
// the gate there: it provides the *redisstore.Client and, from it,
// store.Rates, store.Idempotency and store.Cache, which RateLimits,
// Idempotency and ResponseCache pick up, store.Bans and store.Flood,
// which the gate's authn.Bans and authn.Flood of fxsvc.Authn pick up (the ban
// store's subscriber, one pub/sub connection, opens and closes with the
// app), store.Introspections, where fxsvc.Authn's verifier shares
// introspection answers (bearer.Introspect; see bearer.Store),
// and store.Replay, where the DPoP proofs fxsvc.Authn takes
// under SVC_AUTHN_DPOP are remembered, so that a proof one replica
// accepted is a replay at every other. The client PINGs Redis when the
// app starts (a wrong address, password or CA fails the start naming
// SVC_REDIS_URL; see redisstore.Client.Check) and closes when it stops; /readyz (see fxsvc.Health) checks
// it with redisstore.Client.Check under the name "redis".
//
// Without SVC_REDIS_URL (read when Redis is called) the app runs on the
// components' in-memory stores, each replica its own, and says so in one
// info line at start: an app needs no branch on its environment. It then
// provides no *redisstore.Client.
//
// It refuses a second Redis in one app and any SVC_REDIS_* value
// redisstore.FromEnv refuses (fx.New fails naming the variable).
func Redis(opts ...redisstore.Option) fx.Option {
	if os.Getenv("SVC_REDIS_URL") == "" {
		return inMemory()
	}
	return fx.Module("svc.redis",
		lifecycle.Singleton("redis", "fxredis.Redis"),
		fxsvc.KnownVariables(redisstore.EnvVariables()...),
		fx.Provide(func(in redisIn) (*redisstore.Client, error) {
			cfg, err := redisstore.FromEnv()
			if err != nil {
				return nil, fmt.Errorf("fxredis.Redis: %w", err)
			}
			return newRedis(in, cfg, opts, "fxredis.Redis")
		}),
		redisProvides,
	)
}

// Config is [Redis] with the settings given instead of read from the
// environment.
func Config(cfg redisstore.Config, opts ...redisstore.Option) fx.Option {
	return fx.Module("svc.redis",
		lifecycle.Singleton("redis", "fxredis.Config"),
		fx.Provide(func(in redisIn) (*redisstore.Client, error) { return newRedis(in, cfg, opts, "fxredis.Config") }),
		redisProvides,
	)
}

var redisProvides = fx.Options(
	fx.Provide(
		sharedState,
		func(c *redisstore.Client) store.Rates { return c.Rates() },
		func(c *redisstore.Client) store.Idempotency { return c.Idempotency() },
		func(c *redisstore.Client) store.Cache { return c.Cache() },
		redisBans,
		func(c *redisstore.Client) store.Flood { return c.Flood() },
		func(c *redisstore.Client) store.Introspections { return c.Introspections() },
		func(c *redisstore.Client) store.Replay { return c.DPoPReplay() },
	),
	fxsvc.Readiness(func(c *redisstore.Client) fxsvc.ReadinessCheck {
		return fxsvc.ReadinessCheck{Name: "redis", Check: c.Check}
	}),
)

// redisBans builds the gate's ban store; the client runs its subscriber
// from its first use until the client closes with the app.
func redisBans(c *redisstore.Client) store.Bans { return c.Bans() }

// newRedis builds the client and opens it with the app; by names the
// option that asked for it in errors.
func newRedis(in redisIn, cfg redisstore.Config, opts []redisstore.Option, by string) (*redisstore.Client, error) {
	log, err := in.logger()
	if err != nil {
		return nil, err
	}
	opts = append([]redisstore.Option{redisstore.Logger(log)}, opts...)
	c, err := redisstore.New(cfg, opts...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", by, err)
	}
	in.Lifecycle.Append(fx.Hook{
		OnStart: func(ctx context.Context) error {
			if err := c.Check(ctx); err != nil {
				// fx runs no OnStop for a hook whose OnStart failed.
				_ = c.Close()
				return fmt.Errorf("%s: %w", by, err)
			}
			return nil
		},
		OnStop: func(context.Context) error { return c.Close() },
	})
	return c, nil
}

// inMemory is Redis without SVC_REDIS_URL: nothing but its line at start
// (the start line's shared_state says in-memory).
func inMemory() fx.Option {
	return fx.Module("svc.redis",
		lifecycle.Singleton("redis", "fxredis.Redis"),
		fx.Invoke(func(in redisIn) error {
			log, err := in.logger()
			if err != nil {
				return err
			}
			in.Lifecycle.Append(fx.Hook{OnStart: func(context.Context) error {
				log.Info("svc.redis: SVC_REDIS_URL is not set: rate limits, idempotency records, cached responses, bans, flood limits, DPoP proof ids and introspection answers stay in this process's memory, not shared with other replicas")
				return nil
			}})
			return nil
		}),
	)
}

// sharedState tells fxsvc.Run's start line that the shared state is on
// Redis, and where: the topology (mode, the Sentinel set's master name)
// and its addresses, which hold no password. It is the one place the
// start line names Redis.
func sharedState(c *redisstore.Client) *kitlog.SharedState {
	t := c.Topology()
	store := "redis"
	if t.Mode != "" && t.Mode != "single" {
		store += " " + t.Mode
	}
	if t.MasterName != "" {
		store += " master=" + t.MasterName
	}
	return &kitlog.SharedState{Store: store, Address: "redis://" + strings.Join(t.Addrs, ",")}
}
