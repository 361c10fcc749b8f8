package redisstore

import "time"

// RoundIntervalsAbove sets roundAbove for a test and restores it after.
func RoundIntervalsAbove(t interface{ Cleanup(func()) }, d time.Duration) {
	old := roundAbove
	roundAbove = d
	t.Cleanup(func() { roundAbove = old })
}
