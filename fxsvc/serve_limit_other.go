//go:build !unix

package fxsvc

// descriptorLimit is unknown outside Unix: the cap falls back to
// [fallbackMaxConnections].
func descriptorLimit() uint64 { return 0 }
