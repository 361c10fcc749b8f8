package spiffe

import "time"

// SetClock makes s read the time from now.
func SetClock(s *Source, now func() time.Time) { s.now = now }

// HoldTurn takes s's fetch turn until release is called.
func HoldTurn(s *Source) (release func()) {
	s.turn <- struct{}{}
	return func() { <-s.turn }
}
