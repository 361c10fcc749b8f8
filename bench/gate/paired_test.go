package gate_test

import (
	"runtime"
	"testing"
	"time"
)

// cost is what one side of a paired benchmark took per iteration.
type cost struct{ wall, cpu float64 } // ns

// paired times a and z alternately, in blocks of n iterations between
// clock reads (so the clocks' own cost stays out), for every b.Loop turn.
// Both sides see the same machine load. It reads wall time and the
// thread's CPU time: on a busy box the CPU time leaves out the time the
// thread spent descheduled, which wall time cannot.
func paired(b *testing.B, n int, a, z func()) (ca, cz cost) {
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
	return cost{per(aw), per(ac)}, cost{per(zw), per(zc)}
}

// cpuMeter reports, beside wall time, the CPU time the benchmark's own
// thread spent per iteration ("cpu-ns/op"): on a loaded box it leaves out
// the time the thread was descheduled. Background GC work on other threads
// is not in it, so allocation-heavy contenders look a little cheaper than
// they are. Call it before the loop and defer its result.
func cpuMeter(b *testing.B) func() {
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

// report publishes both sides of a pair and their ratio, on wall and on
// CPU time (the CPU metrics only where the thread clock is read).
func report(b *testing.B, an, zn string, ca, cz cost) {
	b.ReportMetric(ca.wall, an+"-ns/op")
	b.ReportMetric(cz.wall, zn+"-ns/op")
	b.ReportMetric(ca.wall/cz.wall, an+"/"+zn)
	if ca.cpu > 0 && cz.cpu > 0 {
		b.ReportMetric(ca.cpu, an+"-cpu-ns/op")
		b.ReportMetric(cz.cpu, zn+"-cpu-ns/op")
		b.ReportMetric(ca.cpu/cz.cpu, an+"/"+zn+"-cpu")
	}
}
