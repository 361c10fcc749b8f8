package bans

import (
	"time"

	"github.com/svckit/svc/internal/guardhook"
)

// The gate asks a Bans about each request's address through
// internal/guardhook; an app only builds it.
func init() {
	guardhook.BansOf = func(b, shared any) guardhook.Bans {
		bb, _ := b.(*Bans)
		if bb == nil {
			return nil
		}
		s, _ := shared.(Store)
		return gateSide{bb.shared(s)}
	}
}

// gateSide is a Bans as the gate sees it.
type gateSide struct{ b *Bans }

func (g gateSide) Name() string                             { return g.b.name }
func (g gateSide) Banned(addr string) (time.Duration, bool) { return g.b.banned(addr) }
func (g gateSide) Active() int                              { return g.b.active() }

func (g gateSide) Fail(addr string) (guardhook.Ban, bool) {
	s, started := g.b.fail(addr)
	return guardhook.Ban{Failures: s.Failures, Duration: s.Duration, Until: s.Until}, started
}
