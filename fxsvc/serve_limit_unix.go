//go:build unix

package fxsvc

import "golang.org/x/sys/unix"

// descriptorLimit is the process's soft RLIMIT_NOFILE (Go raises it to the
// hard limit at start on most systems); 0 when it cannot be read.
func descriptorLimit() uint64 {
	var rl unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &rl); err != nil {
		return 0
	}
	return uint64(rl.Cur)
}
