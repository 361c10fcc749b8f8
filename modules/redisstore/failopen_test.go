package redisstore

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
)

func TestFailOpenWarnsOnceAMinuteWithTheCountHeldBack(t *testing.T) {
	core, logs := observer.New(zapcore.InfoLevel)
	now := time.Unix(1_700_000_000, 0)
	f := newFailOpen("bans", func() *zap.Logger { return zap.New(core) })
	f.now = func() time.Time { return now }
	boom := errors.New("dial tcp 127.0.0.1:6379: connect: connection refused")
	ctx := context.Background()
	for i := 0; i < 4; i++ {
		f.report(ctx, "bans.fail", boom)
	}
	f.report(ctx, "bans.subscribe", boom) // another operation is not hidden
	now = now.Add(time.Minute)
	f.report(ctx, "bans.fail", boom)
	w := logs.FilterMessageSnippet("failing open").FilterField(zap.String("db.operation.name", "bans.fail")).All()
	if len(w) != 2 || w[0].ContextMap()["svc.suppressed"] != int64(0) || w[1].ContextMap()["svc.suppressed"] != int64(3) {
		t.Fatalf("warnings: %v", w)
	}
	if w[0].ContextMap()["error"] != boom.Error() || w[0].ContextMap()["svc.redis.store"] != "bans" {
		t.Fatalf("warning fields: %v", w[0].ContextMap())
	}
	if logs.FilterField(zap.String("db.operation.name", "bans.subscribe")).Len() != 1 {
		t.Fatal("a second operation's failure was held back by the first's")
	}
	f.report(ctx, "bans.fail", boom) // held back
	f.ok()
	f.ok()
	back := logs.FilterMessageSnippet("reaches Redis again").All()
	if len(back) != 1 || back[0].ContextMap()["svc.suppressed"] != int64(1) {
		t.Fatalf("recovery lines: %v", back)
	}
	// After recovery, the next failure warns at once.
	f.report(ctx, "bans.fail", boom)
	if logs.FilterMessageSnippet("failing open").Len() != 4 {
		t.Fatal("the first failure after a recovery was held back")
	}
}
