package fxsvc

import (
	"context"
	"time"
)

// SetShutdownSleep replaces the timer of s's shutdown delay, so that a
// test decides when the delay ends. Call it before the app stops.
func SetShutdownSleep(s *Server, sleep func(ctx context.Context, d time.Duration)) { s.sleep = sleep }

// SetTLSReloadInterval sets how often the certificate files are checked,
// for servers started afterwards; the returned func restores it.
func SetTLSReloadInterval(d time.Duration) (restore func()) {
	old := tlsReloadInterval
	tlsReloadInterval = d
	return func() { tlsReloadInterval = old }
}
