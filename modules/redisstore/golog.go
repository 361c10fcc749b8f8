package redisstore

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/redis/go-redis/v9"
	"go.uber.org/zap"
)

// goRedisLog takes go-redis's own log lines (its dial failures while
// Redis is down, among others), which it would otherwise print to
// stderr, and writes them to the logger of the most recently built
// Client that is still open (of the last one built when all are closed),
// at warn level, at most one line per minute per kind of line (its start,
// see kindOf) with the count of the ones held back in svc.suppressed.
// Every password of a Client ever built is replaced by *** before the
// line is written.
//
// go-redis keeps one logger per process (redis.SetLogger), so this sink is
// installed once, by the first New, and serves every go-redis client of
// the process from then on, the app's own included.
type goRedisLog struct {
	th *throttle

	mu        sync.Mutex
	open      []*Client // in order of building
	last      *Client
	passwords map[string]struct{}
}

var (
	goRedisLogs    = newGoRedisLog()
	goRedisLogOnce sync.Once
)

func newGoRedisLog() *goRedisLog {
	return &goRedisLog{th: newThrottle(warnEvery), passwords: map[string]struct{}{}}
}

// routeGoRedisLogs installs the sink as go-redis's logger, once per
// process, and makes c's logger its target until c closes.
func routeGoRedisLogs(c *Client, passwords ...string) {
	goRedisLogOnce.Do(func() { redis.SetLogger(goRedisLogs) })
	goRedisLogs.attach(c, passwords...)
}

// attach makes c's logger the target of go-redis's lines until c closes
// and remembers its password to mask it.
func (g *goRedisLog) attach(c *Client, passwords ...string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.open = append(g.open, c)
	g.last = c
	for _, pw := range passwords {
		if pw != "" {
			g.passwords[pw] = struct{}{}
		}
	}
}

// detach drops c; a closed client gets lines only while no other is open.
func (g *goRedisLog) detach(c *Client) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for i, o := range g.open {
		if o == c {
			g.open = append(g.open[:i], g.open[i+1:]...)
			break
		}
	}
}

// Printf implements go-redis's logging interface.
func (g *goRedisLog) Printf(_ context.Context, format string, v ...any) {
	line := strings.TrimSpace(fmt.Sprintf(format, v...))
	g.mu.Lock()
	target := g.last
	if len(g.open) > 0 {
		target = g.open[len(g.open)-1]
	}
	for pw := range g.passwords {
		line = strings.ReplaceAll(line, pw, "***")
	}
	g.mu.Unlock()
	n, ok := g.th.pass(kindOf(line))
	if !ok {
		return
	}
	log := zap.L()
	if target != nil {
		log = target.log
	}
	log.Warn("svc.redis: go-redis: "+line, zap.Int("svc.suppressed", n))
}

// kindOf is what a go-redis line is throttled by: the line without its
// digits (addresses, ports, counts), at most 48 bytes of it. go-redis
// logs most lines through one format, "%s", so the format cannot tell
// them apart; the throttle bounds how many kinds it keeps.
func kindOf(line string) string {
	line = strings.TrimPrefix(line, "redis: ")
	var b strings.Builder
	for i := 0; i < len(line) && b.Len() < 48; i++ {
		if c := line[i]; c < '0' || c > '9' {
			b.WriteByte(c)
		}
	}
	return b.String()
}
