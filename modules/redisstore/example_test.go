package redisstore_test

import (
	"context"
	"fmt"
	"time"

	"github.com/svckit/svc/modules/ratelimit"
	"github.com/svckit/svc/modules/redisstore"
	"github.com/svckit/svc/secret"
)

// Without fx: open a client and hand its stores to the components (in an
// fx app, fxredis.Redis() does both).
func ExampleOpen() {
	// Compile-only: it needs a Redis server on 127.0.0.1:6379.
	ctx := context.Background()
	c, err := redisstore.Open(ctx, redisstore.Config{
		URL:     secret.URL("redis://:pw@127.0.0.1:6379/0"),
		Prefix:  "orders:",
		Timeout: 500 * time.Millisecond,
	})
	if err != nil {
		fmt.Println(err) // names SVC_REDIS_URL, with the password as ***
		return
	}
	defer c.Close()
	limiter, err := ratelimit.New(ratelimit.Store(c.Rates()))
	_, _ = limiter, err
}

// Config is printed with the URL's credentials masked, so it can be
// logged.
func ExampleConfig() {
	cfg := redisstore.Config{URL: secret.URL("rediss://svc:pw@redis.internal:6380/0"), Prefix: "orders:"}
	fmt.Println(cfg.URL, cfg.Prefix)
	// Output:
	// rediss://***@redis.internal:6380/0 orders:
}
