package main

import (
	"bytes"
	"strings"
	"testing"
)

// sample is `go test -bench` output as the paired benchmarks print it:
// three counts of two sub-benchmarks with custom metrics, a log line, a
// skip and the trailer.
const sample = `goos: linux
goarch: amd64
pkg: github.com/svckit/svc/bench/gate
cpu: AMD EPYC 7B13
BenchmarkGatePaired/cache-hit-2         	    5000	     41234 ns/op	      1250 svc-ns/op	       400.0 bare-ns/op	         3.125 svc/bare	      1180 svc-cpu-ns/op	       380.0 bare-cpu-ns/op	         3.105 svc/bare-cpu	         0.85 svc/goal-cpu
BenchmarkGatePaired/cache-hit-2         	    5000	     41234 ns/op	         0.95 svc/goal-cpu
    gate_test.go:99: a log line 1 2 3
BenchmarkGatePaired/cache-hit-2         	    5000	     41234 ns/op	         0.91 svc/goal-cpu
BenchmarkRefusal/fresh-ES256-accepted-2 	    1000	    200000 ns/op	  41 allocs/op
BenchmarkRefusal/banned-429-2           	   50000	      4000 ns/op	  14 allocs/op
BenchmarkRefusal/fresh-ES256-accepted-2 	    1000	    400000 ns/op	  41 allocs/op
BenchmarkRefusal/banned-429-2           	   50000	     12000 ns/op	  14 allocs/op
--- SKIP: BenchmarkUnbannedCallerPaired
    redistest.go:161: redistest: redis-server is not on PATH; install it (Debian package redis-server) to run the redis tests
BenchmarkTelemetryPaired/all-off
BenchmarkRateLimitVsPingPaired/interval=200µs-2   	 100	 5 ns/op	 1.2 svc/ping-cpu
PASS
ok  	github.com/svckit/svc/bench/gate	12.3s
`

func TestParseTakesEveryRunOfEveryMetric(t *testing.T) {
	rs := parse(strings.NewReader(sample))
	got, err := rs.values("GatePaired/cache-hit", "svc/goal-cpu", "")
	if err != nil {
		t.Fatal(err)
	}
	if want := []float64{0.85, 0.95, 0.91}; !equal(got, want) {
		t.Errorf("svc/goal-cpu = %v, want %v", got, want)
	}
	if m := rs["GatePaired/cache-hit"][0]["bare-cpu-ns/op"]; m != 380 {
		t.Errorf("bare-cpu-ns/op = %v, want 380", m)
	}
	if got, err := rs.values("RateLimitVsPingPaired/interval=200µs", "svc/ping-cpu", ""); err != nil || !equal(got, []float64{1.2}) {
		t.Errorf("a name with µ: %v, %v", got, err)
	}
	// A name line without results (printed before a sub-benchmark's runs
	// under -v, or by a parent) is not a result.
	if _, ok := rs["TelemetryPaired/all-off"]; ok {
		t.Error("a bare name line was taken as a result")
	}
	if len(rs) != 4 {
		t.Errorf("%d benchmarks parsed, want 4: %v", len(rs), rs)
	}
}

func TestValuesPerAnotherBenchmarkRunByRun(t *testing.T) {
	rs := parse(strings.NewReader(sample))
	got, err := rs.values("Refusal/banned-429", "ns/op", "Refusal/fresh-ES256-accepted")
	if err != nil {
		t.Fatal(err)
	}
	if want := []float64{0.02, 0.03}; !equal(got, want) {
		t.Errorf("banned ÷ fresh = %v, want %v", got, want)
	}
}

func TestValuesRefusesWhatIsNotThere(t *testing.T) {
	rs := parse(strings.NewReader(sample))
	for _, c := range []struct{ name, metric, per, want string }{
		{"GatePaired/fresh", "svc/raw-cpu", "", "no result for GatePaired/fresh"},
		{"GatePaired/cache-hit", "svc/raw-cpu", "", "GatePaired/cache-hit reports no svc/raw-cpu"},
		{"GatePaired/cache-hit", "ns/op", "Refusal/banned-429", "3 runs of GatePaired/cache-hit against 2 of Refusal/banned-429"},
		{"Refusal/banned-429", "allocs/op", "RateLimitVsPingPaired/interval=200µs", "2 runs of Refusal/banned-429 against 1 of RateLimitVsPingPaired/interval=200µs"},
	} {
		if _, err := rs.values(c.name, c.metric, c.per); err == nil || err.Error() != c.want {
			t.Errorf("values(%s, %s, %s) = %v, want %q", c.name, c.metric, c.per, err, c.want)
		}
	}
}

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		in   []float64
		want float64
	}{
		{[]float64{0.95, 0.85, 0.91}, 0.91},
		{[]float64{4, 1, 3, 2}, 2.5},
		{[]float64{7}, 7},
	} {
		in := append([]float64(nil), c.in...)
		if got := median(c.in); got != c.want {
			t.Errorf("median(%v) = %v, want %v", c.in, got, c.want)
		}
		if !equal(in, c.in) {
			t.Errorf("median reordered its input: %v", c.in)
		}
	}
}

func TestHolds(t *testing.T) {
	for _, c := range []struct {
		v     float64
		cmp   string
		limit float64
		want  bool
	}{
		{1.0, "≤", 1.0, true}, {1.001, "≤", 1.0, false},
		{0.2, "<", 0.2, false}, {0.19, "<", 0.2, true},
		{0.8, "≥", 0.8, true}, {0.79, "≥", 0.8, false},
	} {
		if got := holds(c.v, c.cmp, c.limit); got != c.want {
			t.Errorf("holds(%v %s %v) = %v, want %v", c.v, c.cmp, c.limit, got, c.want)
		}
	}
}

func TestFailureAndSkipMessages(t *testing.T) {
	failed := "goos: linux\nBenchmarkGatePaired/cache-hit-2\n--- FAIL: BenchmarkGatePaired/cache-hit-2\n    gate_test.go:130: status 401\nFAIL\nexit status 1\n"
	if got := failure(failed); got != "gate_test.go:130: status 401" {
		t.Errorf("failure = %q", got)
	}
	if got := failure("# github.com/svckit/svc/bench/gate\n./gate_test.go:3:2: undefined: x\n"); got != "# github.com/svckit/svc/bench/gate" {
		t.Errorf("failure of a build = %q", got)
	}
	const why = "redistest: redis-server is not on PATH; install it (Debian package redis-server) to run the redis tests"
	if got := marked(sample, "SKIP", "UnbannedCallerPaired"); got != why {
		t.Errorf("skip reason = %q", got)
	}
	if got := marked(sample, "SKIP", "GatePaired/cache-hit"); got != "" {
		t.Errorf("a skip for a benchmark that ran: %q", got)
	}
	// A failure in one count of three still fails the goal, though two
	// counts printed results; a sibling's failure does not.
	third := sample + "--- FAIL: BenchmarkRefusal/banned-429-2\n    bans_test.go:86: status 200, want 429\n"
	if got := marked(third, "FAIL", "Refusal/banned-429"); got != "bans_test.go:86: status 200, want 429" {
		t.Errorf("failure = %q", got)
	}
	if got := marked(third, "FAIL", "Refusal/fresh-ES256-accepted"); got != "" {
		t.Errorf("a sibling's failure was taken: %q", got)
	}
}

// TestGoalsAreWellFormed: every goal names a package, a comparison holds
// understands and a result its run's pattern selects (the pattern's first
// level is a prefix of the name's, as -bench matches per level).
func TestGoalsAreWellFormed(t *testing.T) {
	seen := map[string]bool{}
	for _, g := range goals {
		if g.path == "" || g.pkg == "" || g.name == "" || g.metric == "" {
			t.Errorf("%+v: a field is empty", g)
		}
		if seen[g.path] {
			t.Errorf("%q twice", g.path)
		}
		seen[g.path] = true
		switch g.cmp {
		case "<", "≤", "≥":
		default:
			t.Errorf("%q: comparison %q", g.path, g.cmp)
		}
		top, _, _ := strings.Cut(g.bench, "/")
		if !strings.HasPrefix(g.name, strings.TrimSuffix(top, "$")) {
			t.Errorf("%q: pattern %q does not select %q", g.path, g.bench, g.name)
		}
	}
}

func TestPrintTablePadsColumns(t *testing.T) {
	var b bytes.Buffer
	printTable(&b, [][4]string{{"a ÷ b", "0.910 (0.850–0.950) x", "≤ 1", "yes"}})
	want := "path  | ratio: median (min–max) metric | goal | holds\n" +
		"a ÷ b | 0.910 (0.850–0.950) x          | ≤ 1  | yes\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

func equal(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if d := a[i] - b[i]; d > 1e-9 || d < -1e-9 {
			return false
		}
	}
	return true
}
