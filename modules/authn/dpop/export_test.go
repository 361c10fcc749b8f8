package dpop

import (
	"time"

	"github.com/svckit/svc/modules/store"
)

// SetClock makes v, its memory replay store (if it has one) and its nonce
// source read time from now.
func SetClock(v *Verifier, now func() time.Time) {
	v.now = now
	if m, ok := v.replay.(*memoryReplay); ok {
		m.now = now
	}
	if v.nonces != nil {
		v.nonces.now = now
	}
}

// SetReplayClock makes a NewMemoryReplay store read time from now.
func SetReplayClock(s store.Replay, now func() time.Time) { s.(*memoryReplay).now = now }
