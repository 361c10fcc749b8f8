//go:build !linux

package pair

import "time"

// threadCPU is not measured off Linux: the paired benchmarks then report
// wall time only.
func threadCPU() time.Duration { return 0 }
