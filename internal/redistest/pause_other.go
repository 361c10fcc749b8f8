//go:build !unix

package redistest

import "testing"

// Pause skips the test: pausing a process needs SIGSTOP (unix).
func (s *Server) Pause(t testing.TB) {
	t.Helper()
	t.Skip("redistest: Pause needs SIGSTOP, which this system lacks")
}

// Resume does nothing: no server was paused.
func (s *Server) Resume(t testing.TB) {}
