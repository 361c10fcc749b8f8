//go:build linux

package pair

import (
	"time"

	"golang.org/x/sys/unix"
)

// threadCPU is the CPU time the calling OS thread has used. The paired
// benchmarks lock their goroutine to a thread and read it around each
// block, so time spent descheduled by other load on the box (2 shared
// cores) stays out of the comparison.
func threadCPU() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}
