package redisstore

import (
	"context"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

// Lines go to the most recent client still open, else to the last one
// built; each kind (format) at most once a minute with the count held
// back; passwords masked.
func TestGoRedisLogRoutesThrottlesAndMasks(t *testing.T) {
	g := newGoRedisLog()
	now := time.Unix(1000, 0)
	g.th.now = func() time.Time { return now }
	client := func() (*Client, *observer.ObservedLogs) {
		core, logs := observer.New(zap.DebugLevel)
		return &Client{log: zap.New(core)}, logs
	}
	a, aLogs := client()
	b, bLogs := client()
	g.attach(a, "pw-of-a")
	g.attach(b, "")
	ctx := context.Background()
	const dial = "redis: connection pool: failed to dial after %d attempts: %v"

	g.Printf(ctx, dial, 1, "dial tcp 127.0.0.1:1: refused (pw-of-a)")
	if bLogs.Len() != 1 || aLogs.Len() != 0 {
		t.Fatalf("lines: a %d, b %d; want the most recent client (b)", aLogs.Len(), bLogs.Len())
	}
	e := bLogs.All()[0]
	if e.Message != "svc.redis: go-redis: redis: connection pool: failed to dial after 1 attempts: dial tcp 127.0.0.1:1: refused (***)" ||
		e.Level != zap.WarnLevel || e.ContextMap()["svc.suppressed"] != int64(0) {
		t.Fatalf("line %q at %v, fields %v", e.Message, e.Level, e.ContextMap())
	}
	g.Printf(ctx, dial, 1, "again")
	g.Printf(ctx, dial, 1, "again")
	g.Printf(ctx, "redis: failed to close connection: %v", "x") // another kind
	if bLogs.Len() != 2 {
		t.Fatalf("%d lines, want 2: one per kind within a minute", bLogs.Len())
	}
	now = now.Add(time.Minute)
	g.detach(b)
	g.Printf(ctx, dial, 1, "later")
	if aLogs.Len() != 1 || aLogs.All()[0].ContextMap()["svc.suppressed"] != int64(2) {
		t.Fatalf("after b closed: a got %v, want one line with 2 held back", aLogs.All())
	}
	now = now.Add(time.Minute)
	g.detach(a)
	g.Printf(ctx, dial, 1, "none open")
	if bLogs.Len() != 3 {
		t.Fatal("with every client closed, the line did not go to the last one built")
	}
}

// go-redis logs most of its lines through one format, "%s": they are
// throttled by what they say, not by the format.
func TestGoRedisLinesOfOneFormatAreThrottledApart(t *testing.T) {
	g := newGoRedisLog()
	now := time.Unix(1000, 0)
	g.th.now = func() time.Time { return now }
	core, logs := observer.New(zap.DebugLevel)
	g.attach(&Client{log: zap.New(core)}, "")
	ctx := context.Background()
	g.Printf(ctx, "%s", "redis: connection pool: failed to dial: dial tcp 127.0.0.1:6379: refused")
	g.Printf(ctx, "%s", "redis: connection pool: failed to dial: dial tcp 127.0.0.1:6380: refused") // same kind
	g.Printf(ctx, "%s", "redis: failed to close connection: reset")
	if logs.Len() != 2 {
		t.Fatalf("%d lines, want 2 (two kinds): %v", logs.Len(), logs.All())
	}
}
