package redisstore

import (
	"testing"

	"github.com/svckit/svc/modules/store"
)

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
