package redisstore

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/svckit/svc/modules/store"
)

var errShape = errors.New("unexpected reply shape")

// An idempotency record is a hash: st ("f" in flight, "d" done), fp
// (fingerprint), own (owner token), resp (stored response), at (stored,
// Unix ns). claim is SET NX PX on a hash: it creates the in-flight record
// with its lease only when no record is there, atomically with reading
// what is there.
//
// KEYS[1]; ARGV fp, owner, lease ms. Returns {state} or {2, resp, at}.
var claim = redis.NewScript(`
local r = redis.call('HMGET', KEYS[1], 'st', 'fp', 'resp', 'at')
if not r[1] then
  redis.call('HSET', KEYS[1], 'st', 'f', 'fp', ARGV[1], 'own', ARGV[2])
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
  return {0}
end
if r[2] ~= ARGV[1] then return {3} end
if r[1] == 'd' then return {2, r[3], r[4]} end
return {1}
`)

// complete stores the response only while the owner holds the record in
// flight, so a request whose lease ran out cannot overwrite a later one's.
//
// KEYS[1]; ARGV owner, resp, ttl ms, at.
var complete = redis.NewScript(`
local r = redis.call('HMGET', KEYS[1], 'st', 'own')
if r[1] ~= 'f' or r[2] ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'st', 'd', 'resp', ARGV[2], 'at', ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
`)

// renew holds the in-flight record for another lease only while the owner
// still holds it.
//
// KEYS[1]; ARGV owner, lease ms. Returns 1 when renewed.
var renew = redis.NewScript(`
local r = redis.call('HMGET', KEYS[1], 'st', 'own')
if r[1] ~= 'f' or r[2] ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
`)

// release drops the in-flight record only when the owner still holds it.
var release = redis.NewScript(`
local r = redis.call('HMGET', KEYS[1], 'st', 'own')
if r[1] ~= 'f' or r[2] ~= ARGV[1] then return 0 end
return redis.call('DEL', KEYS[1])
`)

type records struct{ c *Client }

// Idempotency returns the idempotency-record store; each operation is one
// Lua script. It fails closed: an operation Redis does not answer within
// Timeout returns an error matching store.ErrUnavailable, which the
// idempotency component answers 503 request-refused (the client retries
// later) rather than run a write whose duplicate it could not detect. The
// component releases a claim whose answer, or whose Complete, failed; a
// release that fails too leaves the record in flight until its lease
// ends (the request's deadline at the latest, see idempotency.Lease).
// A failure is logged at most once a minute per operation.
func (c *Client) Idempotency() store.Idempotency { return records{c} }

func (s records) Claim(ctx context.Context, k store.Key, fingerprint, owner string, lease time.Duration) (store.Claim, error) {
	var res []any
	err := s.c.do(ctx, "idempotency.claim", func(ctx context.Context) error {
		var err error
		res, err = claim.Run(ctx, s.c.rdb, []string{s.c.key("idem", k)}, fingerprint, owner, max(1, lease.Milliseconds())).Slice()
		return err
	})
	if err := s.c.idem.report("idempotency.claim", err); err != nil {
		return store.Claim{}, err
	}
	state, _ := res[0].(int64)
	switch state {
	case 0:
		return store.Claim{State: store.Claimed}, nil
	case 1:
		return store.Claim{State: store.InFlight}, nil
	case 3:
		return store.Claim{State: store.Mismatch}, nil
	}
	if len(res) != 3 {
		return store.Claim{}, &unavailable{Op: "idempotency.claim", Err: errShape}
	}
	raw, _ := res[1].(string)
	at, _ := res[2].(string)
	resp, err := decodeResponse([]byte(raw))
	if err != nil {
		return store.Claim{}, &unavailable{Op: "idempotency.claim", Err: err}
	}
	ns, _ := strconv.ParseInt(at, 10, 64)
	return store.Claim{State: store.Done, Response: &resp, Stored: time.Unix(0, ns)}, nil
}

func (s records) Complete(ctx context.Context, k store.Key, owner string, resp store.Response, ttl time.Duration) error {
	raw, err := encodeResponse(resp)
	if err != nil {
		return err
	}
	return s.c.idem.report("idempotency.complete", s.c.do(ctx, "idempotency.complete", func(ctx context.Context) error {
		return complete.Run(ctx, s.c.rdb, []string{s.c.key("idem", k)}, owner, raw, max(1, ttl.Milliseconds()), time.Now().UnixNano()).Err()
	}))
}

func (s records) Renew(ctx context.Context, k store.Key, owner string, lease time.Duration) (bool, error) {
	var held int64
	err := s.c.idem.report("idempotency.renew", s.c.do(ctx, "idempotency.renew", func(ctx context.Context) error {
		var err error
		held, err = renew.Run(ctx, s.c.rdb, []string{s.c.key("idem", k)}, owner, max(1, lease.Milliseconds())).Int64()
		return err
	}))
	return held == 1, err
}

func (s records) Release(ctx context.Context, k store.Key, owner string) error {
	return s.c.idem.report("idempotency.release", s.c.do(ctx, "idempotency.release", func(ctx context.Context) error {
		return release.Run(ctx, s.c.rdb, []string{s.c.key("idem", k)}, owner).Err()
	}))
}

// wire is a stored response (and, for the cache, when it was stored).
type wire struct {
	Status int         `json:"s"`
	Header http.Header `json:"h,omitempty"`
	Body   []byte      `json:"b,omitempty"`
	Stored int64       `json:"t,omitempty"`
}

func encodeResponse(r store.Response) ([]byte, error) {
	return json.Marshal(wire{Status: r.Status, Header: r.Header, Body: r.Body})
}

func decodeResponse(b []byte) (store.Response, error) {
	var w wire
	if err := json.Unmarshal(b, &w); err != nil {
		return store.Response{}, errors.New("a stored response does not decode")
	}
	return store.Response{Status: w.Status, Header: w.Header, Body: w.Body}, nil
}
