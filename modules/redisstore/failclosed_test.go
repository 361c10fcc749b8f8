package redisstore_test

import (
	"errors"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/svckit/svc/internal/redistest"
	"github.com/svckit/svc/modules/redisstore"
	"github.com/svckit/svc/modules/store"
)

// Issue 37 item 5: with Redis gone the fail-closed stores refuse (503)
// and say why: one warning per operation a minute, one line when Redis
// answers again. The idempotency store used to say nothing.
func TestFailClosedStoresWarnOnceAMinute(t *testing.T) {
	srv := redistest.Start(t)
	core, logs := observer.New(zap.InfoLevel)
	c := open(t, srv, redisstore.Logger(zap.New(core)))
	ctx := t.Context()
	k := store.Key{Space: "s", ID: "x"}
	srv.Stop()
	for range 5 {
		if _, err := c.Idempotency().Claim(ctx, k, "fp", "owner", time.Minute); !errors.Is(err, store.ErrUnavailable) {
			t.Fatalf("claim while down: %v, want store.ErrUnavailable", err)
		}
		if _, err := c.DPoPReplay().Remember(ctx, "jti", time.Minute); !errors.Is(err, store.ErrUnavailable) {
			t.Fatalf("dpop while down: %v, want store.ErrUnavailable", err)
		}
	}
	_ = c.Idempotency().Release(ctx, k, "owner")
	for _, tc := range []struct{ store, op string }{
		{"idempotency", "idempotency.claim"}, {"idempotency", "idempotency.release"}, {"dpop", "dpop.jti"},
	} {
		w := logs.FilterMessageSnippet("failing closed").FilterField(zap.String("db.operation.name", tc.op)).All()
		if len(w) != 1 || w[0].Level != zap.WarnLevel || w[0].ContextMap()["svc.redis.store"] != tc.store || w[0].ContextMap()["error"] == nil {
			t.Errorf("%s: warnings %v, want one from store %s naming the error", tc.op, w, tc.store)
		}
	}
	srv.Restart()
	waitUp(t, c)
	if cl, err := c.Idempotency().Claim(ctx, k, "fp", "owner", time.Minute); err != nil || cl.State != store.Claimed {
		t.Fatalf("claim after recovery: %+v %v", cl, err)
	}
	c.Idempotency().Claim(ctx, k, "fp", "owner", time.Minute)
	back := logs.FilterMessageSnippet("idempotency store reaches Redis again").All()
	if len(back) != 1 || back[0].ContextMap()["svc.suppressed"] != int64(4) {
		t.Fatalf("recovery lines %v, want one telling of the 4 claims held back", back)
	}
}
