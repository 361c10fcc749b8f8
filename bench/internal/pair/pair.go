// Package pair measures two sides of a comparison alternately in one loop,
// on wall time and on the benchmark thread's CPU time, so that both sides
// see the same load on a shared machine.
package pair

import (
	"runtime"
	"testing"
	"time"
)

// Cost is what one side of a paired benchmark took per iteration.
type Cost struct{ Wall, CPU float64 } // ns per iteration

// Paired times a and z alternately, in blocks of n iterations between
// clock reads (so the clocks' own cost stays out), for every b.Loop turn.
// Both sides see the same machine load. It reads wall time and the
// thread's CPU time: on a busy box the CPU time leaves out the time the
// thread spent descheduled, which wall time cannot.
func Paired(b *testing.B, n int, a, z func()) (ca, cz Cost) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var aw, zw, ac, zc time.Duration
	for b.Loop() {
		c0, t0 := threadCPU(), time.Now()
		for range n {
			a()
		}
		c1, t1 := threadCPU(), time.Now()
		for range n {
			z()
		}
		c2, t2 := threadCPU(), time.Now()
		aw += t1.Sub(t0)
		zw += t2.Sub(t1)
		ac += c1 - c0
		zc += c2 - c1
	}
	iters := float64(b.N * n)
	per := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / iters }
	return Cost{per(aw), per(ac)}, Cost{per(zw), per(zc)}
}

// CPUMeter reports, beside wall time, the CPU time the benchmark's own
// thread spent per iteration ("cpu-ns/op"): on a loaded box it leaves out
// the time the thread was descheduled. Background GC work on other threads
// is not in it, so allocation-heavy contenders look a little cheaper than
// they are. Call it before the loop and defer its result.
func CPUMeter(b *testing.B) func() {
	runtime.LockOSThread()
	c0 := threadCPU()
	return func() {
		c := threadCPU() - c0
		runtime.UnlockOSThread()
		if c0 > 0 && b.N > 0 {
			b.ReportMetric(float64(c.Nanoseconds())/float64(b.N), "cpu-ns/op")
		}
	}
}

// Report publishes both sides of a pair and their ratio, on wall and on
// CPU time (the CPU metrics only where the thread clock is read).
func Report(b *testing.B, an, zn string, ca, cz Cost) {
	b.ReportMetric(ca.Wall, an+"-ns/op")
	b.ReportMetric(cz.Wall, zn+"-ns/op")
	b.ReportMetric(ca.Wall/cz.Wall, an+"/"+zn)
	if ca.CPU > 0 && cz.CPU > 0 {
		b.ReportMetric(ca.CPU, an+"-cpu-ns/op")
		b.ReportMetric(cz.CPU, zn+"-cpu-ns/op")
		b.ReportMetric(ca.CPU/cz.CPU, an+"/"+zn+"-cpu")
	}
}
