package redisstore

import (
	"context"
	"encoding/json"
	"time"

	"github.com/svckit/svc/modules/store"
)

type cache struct{ c *Client }

// Cache returns the response-cache store: GET, SET with PX and DEL, one
// round trip each. A response over CacheMaxBytes (SVC_REDIS_CACHE_MAX_BYTES) is
// not stored. It bypasses on failure: while Redis does not answer within
// Timeout, Get reports a miss and Set stores nothing, both without error,
// so requests run their handlers.
func (c *Client) Cache() store.Cache { return cache{c} }

func (s cache) Get(ctx context.Context, k store.Key) (store.Entry, bool, error) {
	var raw []byte
	err := s.c.do(ctx, "cache.get", func(ctx context.Context) error {
		var err error
		raw, err = s.c.rdb.Get(ctx, s.c.key("cache", k)).Bytes()
		return err
	})
	if err != nil {
		return store.Entry{}, false, nil
	}
	var w wire
	if json.Unmarshal(raw, &w) != nil {
		return store.Entry{}, false, nil
	}
	return store.Entry{
		Response: store.Response{Status: w.Status, Header: w.Header, Body: w.Body},
		Stored:   time.Unix(0, w.Stored),
	}, true, nil
}

func (s cache) Set(ctx context.Context, k store.Key, e store.Entry, ttl time.Duration) error {
	if len(e.Response.Body) > s.c.cfg.CacheMaxBytes || ttl <= 0 {
		return nil
	}
	raw, err := json.Marshal(wire{Status: e.Response.Status, Header: e.Response.Header, Body: e.Response.Body, Stored: e.Stored.UnixNano()})
	if err != nil || len(raw) > s.c.cfg.CacheMaxBytes {
		return nil
	}
	_ = s.c.do(ctx, "cache.set", func(ctx context.Context) error {
		return s.c.rdb.Set(ctx, s.c.key("cache", k), raw, ttl).Err()
	})
	return nil
}

// Delete drops the entry; on failure the entry stays until its TTL, as a
// failed Set leaves nothing: the error is counted and logged by the
// client, not returned, so the write that asked still answers.
func (s cache) Delete(ctx context.Context, k store.Key) error {
	_ = s.c.do(ctx, "cache.delete", func(ctx context.Context) error {
		return s.c.rdb.Del(ctx, s.c.key("cache", k)).Err()
	})
	return nil
}
