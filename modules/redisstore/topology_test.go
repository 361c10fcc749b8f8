package redisstore_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/svckit/svc/internal/redistest"
	"github.com/svckit/svc/modules/redisstore"
	"github.com/svckit/svc/modules/store"
	"github.com/svckit/svc/secret"
)

func TestModeAndURLRefusalsNameTheVariable(t *testing.T) {
	for _, tc := range []struct {
		name, mode, url string
		want            []string
	}{
		{"unknown mode", "replicated", "redis://127.0.0.1:6379", []string{"SVC_REDIS_MODE", `"replicated"`, "single, sentinel, cluster"}},
		{"sentinel without master_name", "sentinel", "redis://:pw-sentinel@127.0.0.1:26379?addr=127.0.0.1:26380&password=pw-data", []string{"SVC_REDIS_URL", "master_name", "SVC_REDIS_MODE=sentinel"}},
		{"sentinel with an unknown parameter", "sentinel", "redis://127.0.0.1:26379?master_name=m&pasword=pw-data", []string{"SVC_REDIS_URL", "Sentinel form", "SVC_REDIS_MODE=sentinel"}},
		{"cluster with a database", "cluster", "redis://:pw-data@127.0.0.1:7000/2?addr=127.0.0.1:7001", []string{"SVC_REDIS_URL", "database 0 only"}},
		{"cluster with an unknown parameter", "cluster", "redis://:pw-data@127.0.0.1:7000?adr=127.0.0.1:7001", []string{"SVC_REDIS_URL", "Cluster form", "SVC_REDIS_MODE=cluster"}},
		{"single with a sentinel's query", "single", "redis://:pw-data@127.0.0.1:6379?master_name=m", []string{"SVC_REDIS_URL", "SVC_REDIS_MODE=single"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("SVC_REDIS_URL", tc.url)
			t.Setenv("SVC_REDIS_MODE", tc.mode)
			cfg, err := redisstore.FromEnv()
			if err == nil {
				_, err = redisstore.New(cfg)
			}
			if err == nil {
				t.Fatal("accepted")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("err = %v, want it to hold %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "pw-") {
				t.Errorf("err = %v repeats a password", err)
			}
		})
	}
}

// topologies starts one Sentinel set and one Cluster, shared by the
// subtests of f, and runs f once per mode (single included).
func eachTopology(t *testing.T, f func(t *testing.T, cfg redisstore.Config)) {
	t.Helper()
	t.Run("single", func(t *testing.T) {
		f(t, redisstore.Config{URL: secret.URL(redistest.Start(t).URL), Timeout: 2 * time.Second})
	})
	if testing.Short() {
		t.Skip("-short: a Sentinel set and a Cluster are thirteen processes")
	}
	t.Run("sentinel", func(t *testing.T) {
		set := redistest.StartSentinel(t)
		f(t, redisstore.Config{URL: secret.URL(set.URL), Mode: "sentinel", Timeout: 2 * time.Second})
	})
	t.Run("cluster", func(t *testing.T) {
		c := redistest.StartCluster(t)
		f(t, redisstore.Config{URL: secret.URL(c.URL), Mode: "cluster", Timeout: 2 * time.Second})
	})
}

// TestEveryStoreOnEveryTopology runs each store's operations on one
// Redis, a Sentinel set and a Cluster, and fails when a script or a
// multi-key command names keys of two hash slots (a Cluster would answer
// CROSSSLOT; the hook tells it on every topology).
func TestEveryStoreOnEveryTopology(t *testing.T) {
	eachTopology(t, func(t *testing.T, cfg redisstore.Config) {
		c, err := redisstore.Open(t.Context(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Close() })
		slots := &slotCheck{}
		c.Redis().AddHook(slots)
		ctx := t.Context()
		for i := range 20 { // keys spread over the slots of every primary
			id := fmt.Sprintf("user-%d", i)
			k := store.Key{Space: "api", Owner: id, ID: "orders"}
			r := store.Rate{Interval: time.Hour, Burst: 1}
			if res, err := c.Rates().Allow(ctx, k, r); err != nil || !res.Allowed {
				t.Fatalf("rate, first: %+v %v", res, err)
			}
			if res, err := c.Rates().Allow(ctx, k, r); err != nil || res.Allowed {
				t.Fatalf("rate, second: %+v %v", res, err)
			}
			cl, err := c.Idempotency().Claim(ctx, k, "fp", "owner-"+id, time.Minute)
			if err != nil || cl.State != store.Claimed {
				t.Fatalf("claim: %+v %v", cl, err)
			}
			if err := c.Idempotency().Complete(ctx, k, "owner-"+id, store.Response{Status: 201, Body: []byte("made")}, time.Minute); err != nil {
				t.Fatalf("complete: %v", err)
			}
			if cl, err := c.Idempotency().Claim(ctx, k, "fp", "other", time.Minute); err != nil || cl.State != store.Done || string(cl.Response.Body) != "made" {
				t.Fatalf("replay: %+v %v", cl, err)
			}
			if err := c.Cache().Set(ctx, k, store.Entry{Response: store.Response{Status: 200, Body: []byte("x")}, Stored: time.Now()}, time.Minute); err != nil {
				t.Fatalf("cache set: %v", err)
			}
			if e, ok, err := c.Cache().Get(ctx, k); err != nil || !ok || string(e.Response.Body) != "x" {
				t.Fatalf("cache get: %+v %v %v", e, ok, err)
			}
			if err := c.Cache().Delete(ctx, k); err != nil {
				t.Fatalf("cache delete: %v", err)
			}
			if fresh, err := c.DPoPReplay().Remember(ctx, "jti-"+id, time.Minute); err != nil || !fresh {
				t.Fatalf("dpop, first: %v %v", fresh, err)
			}
			if fresh, err := c.DPoPReplay().Remember(ctx, "jti-"+id, time.Minute); err != nil || fresh {
				t.Fatalf("dpop, replay: %v %v", fresh, err)
			}
			addr := fmt.Sprintf("192.0.2.%d", i)
			if _, ok, err := c.Flood().Allow(ctx, addr, time.Now(), store.FloodRule{Rate: 1, Burst: 1}); err != nil || !ok {
				t.Fatalf("flood: %v %v", ok, err)
			}
			b := c.Bans()
			if _, _, err := b.Fail(ctx, addr, time.Now(), store.BanRule{Name: "forged", Threshold: 2, Window: time.Minute, Duration: time.Minute}); err != nil {
				t.Fatalf("bans, first failure: %v", err)
			}
			if st, started, err := b.Fail(ctx, addr, time.Now(), store.BanRule{Name: "forged", Threshold: 2, Window: time.Minute, Duration: time.Minute}); err != nil || !started || st.Addr != addr {
				t.Fatalf("bans, second failure: %+v %v %v", st, started, err)
			}
		}
		slots.check(t)
	})
}

// slotCheck is a go-redis hook that records every command naming more
// than one key whose keys fall into more than one hash slot.
type slotCheck struct {
	mu      sync.Mutex
	crossed []string
	multi   int // commands seen with two keys or more
}

func (*slotCheck) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *slotCheck) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		h.see(cmd)
		return next(ctx, cmd)
	}
}

func (h *slotCheck) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		for _, c := range cmds {
			h.see(c)
		}
		return next(ctx, cmds)
	}
}

func (h *slotCheck) see(cmd redis.Cmder) {
	keys := keysOf(cmd)
	if len(keys) < 2 {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.multi++
	for _, k := range keys[1:] {
		if slot(k) != slot(keys[0]) {
			h.crossed = append(h.crossed, fmt.Sprintf("%s %q", cmd.Name(), keys))
			return
		}
	}
}

func (h *slotCheck) check(t *testing.T) {
	t.Helper()
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.multi == 0 {
		t.Fatal("no command named two keys: the check saw nothing (the ban script names two)")
	}
	for _, c := range h.crossed {
		t.Errorf("keys of two hash slots in one command: %s", c)
	}
}

// keysOf returns the keys of the commands the stores send with more than
// one: EVAL/EVALSHA (numkeys, then the keys), DEL, MGET and EXISTS.
func keysOf(cmd redis.Cmder) []string {
	args := cmd.Args()
	var keys []string
	switch strings.ToLower(cmd.Name()) {
	case "eval", "evalsha", "eval_ro", "evalsha_ro":
		n, _ := args[2].(int)
		for i := 0; i < n && 3+i < len(args); i++ {
			keys = append(keys, fmt.Sprint(args[3+i]))
		}
	case "del", "mget", "exists", "unlink":
		for _, a := range args[1:] {
			keys = append(keys, fmt.Sprint(a))
		}
	}
	return keys
}

// slot is the Cluster's hash slot of key: CRC16 (XMODEM) of its hash tag
// (the part between the first '{' and the next '}', when not empty) or of
// the whole key, modulo 16384.
func slot(key string) uint16 {
	if s := strings.IndexByte(key, '{'); s >= 0 {
		if e := strings.IndexByte(key[s+1:], '}'); e > 0 {
			key = key[s+1 : s+1+e]
		}
	}
	var crc uint16
	for i := 0; i < len(key); i++ {
		crc ^= uint16(key[i]) << 8
		for range 8 {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
	}
	return crc % 16384
}

func TestSlotFollowsTheClusterSpecification(t *testing.T) {
	// The Redis Cluster specification: CRC16("123456789") is 0x31C3, and
	// its examples of hash tags.
	if got := slot("123456789"); got != 0x31C3 {
		t.Errorf("slot(123456789) = %d, want %d", got, 0x31C3)
	}
	for key, same := range map[string]string{"{user1000}.following": "user1000", "foo{{bar}}zap": "{bar", "foo{bar}{zap}": "bar"} {
		if slot(key) != slot(same) {
			t.Errorf("slot(%q) != slot(%q)", key, same)
		}
	}
	if slot("foo{}{bar}") == slot("bar") || slot("foo{}{bar}") == slot("") {
		t.Error("an empty tag must hash the whole key")
	}
}
