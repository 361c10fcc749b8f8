package fxsvc

import "math"

// fallbackMaxConnections is the connection cap where the descriptor limit
// cannot be read.
const fallbackMaxConnections = 10_000

// maxDefaultConnections bounds the default cap when the descriptor limit
// is unlimited or very large: each connection costs memory too.
const maxDefaultConnections = 1 << 20

// defaultMaxConnections is the connection cap of [Serve] when
// SVC_HTTP_MAX_CONNECTIONS is unset: the process's descriptor limit less a
// reserve of a tenth (at least 64) for everything else the process opens
// (files, Redis, outbound calls, exporters), so that the server runs out
// of connections before the process runs out of descriptors. limit 0
// means unknown.
func defaultMaxConnections(limit uint64) int {
	if limit == 0 {
		return fallbackMaxConnections
	}
	reserve := max(limit/10, 64)
	if limit <= 2*reserve {
		return int(max(limit/2, 1))
	}
	return int(min(limit-reserve, maxDefaultConnections, math.MaxInt32))
}
