//go:build unix

package redistest

import (
	"syscall"
	"testing"
)

// Pause stops the server's process (SIGSTOP) until [Server.Resume] or the
// test's end: it keeps its connections and accepts new ones (the kernel
// does), but answers nothing, as a server stuck in a long command, a
// swap storm or a lost network does. What clients sent meanwhile is run
// when it resumes, even for a client that gave up waiting.
func (s *Server) Pause(t testing.TB) {
	t.Helper()
	s.signal(t, syscall.SIGSTOP)
	t.Cleanup(func() { s.signal(t, syscall.SIGCONT) })
}

// Resume continues a paused server (SIGCONT).
func (s *Server) Resume(t testing.TB) {
	t.Helper()
	s.signal(t, syscall.SIGCONT)
}

func (s *Server) signal(t testing.TB, sig syscall.Signal) {
	t.Helper()
	s.mu.Lock()
	cmd := s.cmd
	s.mu.Unlock()
	if cmd == nil {
		return // stopped: nothing to pause or resume
	}
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatalf("redistest: %s: %v", sig, err)
	}
}
