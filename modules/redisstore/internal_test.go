package redisstore

import (
	"errors"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/svckit/svc/modules/store"
)

func TestWarnerOnePerPeriodWithSuppressedCount(t *testing.T) {
	core, logs := observer.New(zap.WarnLevel)
	now := time.Unix(1000, 0)
	w := newWarner(zap.New(core), time.Minute, func() time.Time { return now })
	boom := errors.New("boom")
	for range 4 {
		w.warn("down", boom)
	}
	now = now.Add(59 * time.Second)
	w.warn("down", boom)
	if logs.Len() != 1 {
		t.Fatalf("%d lines within a minute, want 1", logs.Len())
	}
	now = now.Add(time.Second)
	w.warn("down", boom)
	all := logs.All()
	if len(all) != 2 {
		t.Fatalf("%d lines after a minute, want 2", len(all))
	}
	if got := all[0].ContextMap()["suppressed"]; got != int64(0) {
		t.Fatalf("first line suppressed = %v", got)
	}
	if got := all[1].ContextMap()["suppressed"]; got != int64(4) {
		t.Fatalf("second line suppressed = %v, want 4", got)
	}
}

func TestKeysEscapeTheirParts(t *testing.T) {
	c := &Client{cfg: Config{Prefix: "orders:"}}
	cases := []struct {
		k    store.Key
		want string
	}{
		{store.Key{Space: "s", Owner: "o", ID: "i"}, "orders:rate:s:o:i"},
		{store.Key{Space: "s", Owner: "o:i", ID: ""}, "orders:rate:s:o%3Ai:"},
		{store.Key{Space: "s", Owner: "o", ID: ":i"}, "orders:rate:s:o:%3Ai"},
		{store.Key{Space: "%", Owner: "", ID: ""}, "orders:rate:%25::"},
	}
	seen := map[string]bool{}
	for _, tc := range cases {
		got := c.key("rate", tc.k)
		if got != tc.want {
			t.Errorf("key(%+v) = %q, want %q", tc.k, got, tc.want)
		}
		if seen[got] {
			t.Errorf("two keys join to %q", got)
		}
		seen[got] = true
	}
}
