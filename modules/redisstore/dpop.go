package redisstore

import (
	"context"
	"time"

	"github.com/svckit/svc/modules/store"
)

type dpopReplay struct{ c *Client }

// DPoPReplay returns a store.Replay on this connection, so that every
// replica refuses a proof another one accepted: one SET key NX PX per
// proof, atomic, one round trip. A key is the prefix, "dpop:" and the
// verifier's fixed-length hash of the key's thumbprint and the jti; it is
// a single key, so it needs no hash tag on a Cluster. Give it to the
// verifier with dpop.Store.
//
// It fails closed: a check Redis does not answer within Timeout returns
// an error matching store.ErrUnavailable, and the verifier refuses the
// proof 503 rather than let a replay through; a warning says so at most
// once a minute. Round trips are measured under db.operation.name
// dpop.jti.
func (c *Client) DPoPReplay() store.Replay { return dpopReplay{c} }

func (s dpopReplay) Remember(ctx context.Context, id string, ttl time.Duration) (bool, error) {
	var fresh bool
	err := s.c.do(ctx, "dpop.jti", func(ctx context.Context) error {
		var err error
		fresh, err = s.c.rdb.SetNX(ctx, s.c.cfg.Prefix+"dpop:"+id, "1", max(time.Millisecond, ttl)).Result()
		return err
	})
	if err := s.c.dpop.report("dpop.jti", err); err != nil {
		return false, err
	}
	return fresh, nil
}
