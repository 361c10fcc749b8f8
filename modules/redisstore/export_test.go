package redisstore

import "time"

// RoundIntervalsAbove sets roundAbove for a test and restores it after.
func RoundIntervalsAbove(t interface{ Cleanup(func()) }, d time.Duration) {
	old := roundAbove
	roundAbove = d
	t.Cleanup(func() { roundAbove = old })
}

// The stores built on a bare go-redis client, for tests that need no
// Client: the options Client.Bans and Client.Flood set themselves.
var (
	NewBans         = newBans
	BansResyncEvery = bansResyncEvery
	NewFlood        = newFlood
	BansTimeout     = bansTimeout
	BansLogger      = bansLogger
	FloodTimeout    = floodTimeout
	FloodLogger     = floodLogger
)

// BansOption configures NewBans.
type BansOption = bansOption
