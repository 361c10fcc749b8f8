package redis_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/svckit/svc/bench/internal/pair"
)

// BenchmarkDPoPReplayVsPingPaired: svc's DPoP jti check (one SET NX PX of
// a new id) against one PING on the same connection. Goal (issue 21):
// ≤ 1.3× one PING.
//
//	cd bench && go test -run '^$' -bench 'DPoPReplayVsPing' -benchmem -count 6 ./redis
func BenchmarkDPoPReplayVsPingPaired(b *testing.B) {
	c := svcClient(b)
	ctx := context.Background()
	s := c.DPoPReplay()
	// Ids of the verifier's length (43 characters), each new.
	const pad = "0000000000000000000000000000000000000000000"
	n := 0
	remember := func() {
		n++
		id := strconv.Itoa(n)
		if fresh, err := s.Remember(ctx, pad[len(id):]+id, time.Minute); err != nil || !fresh {
			b.Fatal(fresh, err)
		}
	}
	ping := func() {
		if err := c.Redis().Ping(ctx).Err(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	sa, sz := pair.Paired(b, 16, remember, ping)
	pair.Report(b, "jti", "ping", sa, sz)
}
