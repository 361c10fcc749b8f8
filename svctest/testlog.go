package svctest

import (
	"strings"
	"sync"
	"testing"
)

// testLog is an io.Writer onto t.Log: the app's log lines are shown when
// the test fails (or under -v) instead of filling standard error. A line
// written after the test ended (a goroutine the app left running) is
// dropped: t.Log would panic then.
type testLog struct {
	t    testing.TB
	mu   sync.Mutex
	done bool
}

// newTestLog returns a writer onto t.Log that closes itself when the test
// ends. It is registered before the app's stop, so it closes after it
// (cleanups run last first) and the stop's own lines are kept.
func newTestLog(t testing.TB) *testLog {
	l := &testLog{t: t}
	t.Cleanup(func() {
		l.mu.Lock()
		l.done = true
		l.mu.Unlock()
	})
	return l
}

func (l *testLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.done {
		l.t.Log(strings.TrimRight(string(p), "\n"))
	}
	return len(p), nil
}
