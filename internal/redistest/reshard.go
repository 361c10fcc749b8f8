package redistest

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// MoveSlotOf reshards the slot of key, with every key in it, from its
// primary to another primary as `redis-cli --cluster reshard` does: the
// target imports, the source migrates, the keys move in batches (a client
// meets ASK for a key already moved), then every primary is told the slot's
// new owner (a client with the old map meets MOVED). It returns the source
// and the target.
func (c *Cluster) MoveSlotOf(t testing.TB, key string) (from, to *Server) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), SetTimeout)
	defer cancel()
	from = c.PrimaryOf(t, key)
	src := from.client()
	defer src.Close()
	slot, err := src.ClusterKeySlot(ctx, key).Result()
	if err != nil {
		t.Fatalf("redistest: CLUSTER KEYSLOT %q: %v", key, err)
	}
	ids := map[*Server]string{}
	for _, n := range c.Nodes {
		if !n.running() {
			continue
		}
		rdb := n.client()
		id, err := rdb.ClusterMyID(ctx).Result()
		role, rerr := rdb.Do(ctx, "ROLE").Slice()
		_ = rdb.Close()
		if err != nil || rerr != nil {
			t.Fatalf("redistest: %s: CLUSTER MYID / ROLE: %v %v", n.Addr, err, rerr)
		}
		if role[0] == "master" {
			ids[n] = id
			if n != from && to == nil {
				to = n
			}
		}
	}
	if to == nil {
		t.Fatal("redistest: no other primary to move the slot to")
	}
	dst := to.client()
	defer dst.Close()
	do := func(n *Server, args ...any) {
		t.Helper()
		rdb := n.client()
		defer rdb.Close()
		if err := rdb.Do(ctx, append([]any{"CLUSTER", "SETSLOT", slot}, args...)...).Err(); err != nil {
			t.Fatalf("redistest: %s: CLUSTER SETSLOT %d %v: %v", n.Addr, slot, args, err)
		}
	}
	do(to, "IMPORTING", ids[from])
	do(from, "MIGRATING", ids[to])
	host, port := splitAddr(to.Addr)
	for {
		keys, err := src.ClusterGetKeysInSlot(ctx, int(slot), 10).Result()
		if err != nil {
			t.Fatalf("redistest: CLUSTER GETKEYSINSLOT %d: %v", slot, err)
		}
		if len(keys) == 0 {
			break
		}
		args := []any{"MIGRATE", host, port, "", 0, 5000}
		if to.Password != "" {
			if to.User != "" {
				args = append(args, "AUTH2", to.User, to.Password)
			} else {
				args = append(args, "AUTH", to.Password)
			}
		}
		args = append(args, "KEYS")
		for _, k := range keys {
			args = append(args, k)
		}
		if err := src.Do(ctx, args...).Err(); err != nil && !strings.Contains(err.Error(), "NOKEY") {
			t.Fatalf("redistest: MIGRATE %d keys of slot %d: %v", len(keys), slot, err)
		}
	}
	// The target first, then the source, then the rest, as redis-cli
	// does: a source told first would answer MOVED to a target still
	// importing, which answers MOVED back, until it is told too.
	do(to, "NODE", ids[to])
	do(from, "NODE", ids[to])
	for n := range ids {
		if n != to && n != from {
			do(n, "NODE", ids[to])
		}
	}
	waitFor(t, fmt.Sprintf("slot %d to be served by %s", slot, to.Addr), func(ctx context.Context) error {
		if p := c.PrimaryOf(t, key); p != to {
			return fmt.Errorf("%s still serves %q", p.Addr, key)
		}
		return nil
	})
	return from, to
}
