package redisstore_test

import (
	"bytes"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/svckit/svc/internal/redistest"
	"github.com/svckit/svc/modules/redisstore"
)

// The introspection store keeps bytes under its prefix, reports a miss as
// no value, and while Redis is down returns an error (the verifier then
// asks the endpoint) with one warning for many failures, and one line
// when Redis answers again.
func TestIntrospectionStore(t *testing.T) { redistest.EachEngine(t, testIntrospectionStore) }

func testIntrospectionStore(t *testing.T, engine redistest.Option) {
	srv := redistest.Start(t, engine)
	core, logs := observer.New(zapcore.InfoLevel)
	c := open(t, srv, redisstore.Logger(zap.New(core)))
	s := c.Introspections()
	if v, err := s.Get(t.Context(), "nothing"); v != nil || err != nil {
		t.Fatalf("a missing key: %q %v", v, err)
	}
	value := []byte("1j\x00entry:with%odd bytes")
	if err := s.Set(t.Context(), "k:1", value, time.Minute); err != nil {
		t.Fatal(err)
	}
	if v, err := s.Get(t.Context(), "k:1"); err != nil || !bytes.Equal(v, value) {
		t.Fatalf("got %q %v", v, err)
	}
	if ttl := c.Redis().PTTL(t.Context(), "svc:introspection:k%3A1").Val(); ttl <= 0 || ttl > time.Minute {
		t.Fatalf("key's TTL %v", ttl)
	}
	srv.Stop()
	for range 3 {
		if v, err := s.Get(t.Context(), "k:1"); v != nil || err == nil {
			t.Fatalf("Redis down: %q %v, want an error", v, err)
		}
	}
	if n := logs.FilterMessageSnippet("introspection store cannot reach Redis").Len(); n != 1 {
		t.Fatalf("%d warnings for three failures, want 1", n)
	}
	srv.Restart()
	waitUp(t, c)
	if _, err := s.Get(t.Context(), "k:1"); err != nil {
		t.Fatal(err)
	}
	if n := logs.FilterMessageSnippet("introspection store reaches Redis again").Len(); n != 1 {
		t.Fatalf("%d recovery lines, want 1", n)
	}
}
