package flood

import (
	"time"

	"github.com/svckit/svc/internal/guardhook"
)

// The gate spends a request's budget through internal/guardhook; an app
// only builds the Limit.
func init() {
	guardhook.FloodOf = func(l, shared any) guardhook.Flood {
		ll, _ := l.(*Limit)
		if ll == nil {
			return nil
		}
		s, _ := shared.(Store)
		return gateSide{ll.shared(s)}
	}
}

// gateSide is a Limit as the gate sees it.
type gateSide struct{ l *Limit }

func (g gateSide) Allow(addr string) (time.Duration, bool) { return g.l.allow(addr) }
