package main

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// results holds, for each benchmark name (without the "Benchmark" prefix
// and the -GOMAXPROCS suffix), one map of unit to value per run, in the
// order the runs were printed.
type results map[string][]map[string]float64

// procSuffix is the "-2" the testing package appends to a benchmark's name
// when GOMAXPROCS is above 1.
var procSuffix = regexp.MustCompile(`-\d+$`)

// parse reads `go test -bench` output. A result line is the name, the
// iteration count, then "<value> <unit>" pairs (ns/op, B/op and every
// b.ReportMetric); anything else (logs, PASS, ok, goos) is skipped.
func parse(r io.Reader) results {
	out := results{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") || len(f)%2 != 0 {
			continue
		}
		if _, err := strconv.ParseUint(f[1], 10, 64); err != nil {
			continue
		}
		m := map[string]float64{}
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				m = nil
				break
			}
			m[f[i+1]] = v
		}
		if m == nil {
			continue
		}
		name := procSuffix.ReplaceAllString(strings.TrimPrefix(f[0], "Benchmark"), "")
		out[name] = append(out[name], m)
	}
	return out
}

// values is metric's value in every run of name, or, when per is set, its
// ratio to the same metric of per in the same run (two benchmarks that
// are not paired in one loop but ran one after the other in each count).
func (rs results) values(name, metric, per string) ([]float64, error) {
	runs := rs[name]
	if len(runs) == 0 {
		return nil, fmt.Errorf("no result for %s", name)
	}
	var dens []map[string]float64
	if per != "" {
		if dens = rs[per]; len(dens) != len(runs) {
			return nil, fmt.Errorf("%d runs of %s against %d of %s", len(runs), name, len(dens), per)
		}
	}
	vs := make([]float64, 0, len(runs))
	for i, m := range runs {
		v, ok := m[metric]
		if !ok {
			return nil, fmt.Errorf("%s reports no %s", name, metric)
		}
		if dens != nil {
			d, ok := dens[i][metric]
			if !ok || d == 0 {
				return nil, fmt.Errorf("%s reports no %s", per, metric)
			}
			v /= d
		}
		vs = append(vs, v)
	}
	return vs, nil
}

// median of vs (the mean of the middle two for an even count); vs is not
// modified.
func median(vs []float64) float64 {
	s := slices.Clone(vs)
	slices.Sort(s)
	n := len(s)
	if n == 0 {
		return 0
	}
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// holds says whether v meets the goal "v cmp limit"; cmp is one of
// "<", "≤", "≥".
func holds(v float64, cmp string, limit float64) bool {
	switch cmp {
	case "<":
		return v < limit
	case "≤":
		return v <= limit
	case "≥":
		return v >= limit
	}
	panic("goals: unknown comparison " + cmp)
}

// failure is the first line worth showing from a run that did not
// produce its result: the message under the first "--- FAIL" or, failing
// that, the first line that looks like an error.
func failure(out string) string {
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "--- FAIL") {
			if i+1 < len(lines) && strings.TrimSpace(lines[i+1]) != "" {
				return strings.TrimSpace(lines[i+1])
			}
			return strings.TrimSpace(l)
		}
	}
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if t != "" && !strings.HasPrefix(t, "goos:") && !strings.HasPrefix(t, "goarch:") &&
			!strings.HasPrefix(t, "pkg:") && !strings.HasPrefix(t, "cpu:") && !strings.HasPrefix(t, "Benchmark") {
			return t
		}
	}
	return "no output"
}

// marked is the message under the first "--- <verb>: Benchmark<name>"
// line of out (verb SKIP or FAIL) for name or a benchmark above it, or ""
// when there is none: a run can report results for some counts and fail
// or skip in another.
func marked(out, verb, name string) string {
	lines := strings.Split(out, "\n")
	prefix := "--- " + verb + ": Benchmark"
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if !strings.HasPrefix(t, prefix) {
			continue
		}
		n := procSuffix.ReplaceAllString(strings.TrimPrefix(t, prefix), "")
		if n != name && !strings.HasPrefix(name, n+"/") {
			continue
		}
		if i+1 < len(lines) && strings.TrimSpace(lines[i+1]) != "" && !strings.HasPrefix(strings.TrimSpace(lines[i+1]), "---") {
			msg := strings.TrimSpace(lines[i+1])
			if verb == "SKIP" { // the file:line is noise beside a reason
				if _, after, ok := strings.Cut(msg, ": "); ok && strings.Contains(msg, ".go:") {
					msg = after
				}
			}
			return msg
		}
		return strings.ToLower(verb)
	}
	return ""
}
