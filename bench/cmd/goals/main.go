// Command goals runs, briefly, each benchmark that measures a goal of
// bench/README.md and prints one line per goal: what is measured, the
// ratio (median and range of the runs), the goal, and whether it holds.
//
//	cd bench && go run ./cmd/goals            # or: make bench-goals
//	go run ./cmd/goals -count 5 -benchtime 1s -goals 'gate|telemetry'
//
// Timings are not tests: it exits 0 whatever it finds, a goal whose
// benchmark fails prints "failed: <first error line>", and one that needs
// redis-server without one on PATH prints "skipped (no redis-server)".
// Run it from the bench module's directory.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

func main() {
	benchtime := flag.String("benchtime", "200ms", "-test.benchtime of each run")
	count := flag.Int("count", 3, "-test.count of each run: the median and range are over these")
	only := flag.String("goals", "", "run only the goals whose path or package matches this regexp")
	flag.Parse()
	if err := run(*benchtime, *count, *only); err != nil {
		fmt.Fprintln(os.Stderr, "goals:", err)
	}
	// Exit 0 whatever happened: `make bench-goals` reports, it does not gate.
}

func run(benchtime string, count int, only string) error {
	sel, err := regexp.Compile(only)
	if err != nil {
		return fmt.Errorf("-goals: %w", err)
	}
	tmp, err := os.MkdirTemp("", "bench-goals-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	_, noRedis := exec.LookPath("redis-server")

	r := &runner{dir: tmp, benchtime: benchtime, count: count, built: map[string]error{}, outs: map[string]output{}}
	var rows [][4]string
	for _, g := range goals {
		if !sel.MatchString(g.path) && !sel.MatchString(g.pkg) {
			continue
		}
		if g.redis && noRedis != nil {
			rows = append(rows, row(g, "skipped (no redis-server)", ""))
			continue
		}
		rows = append(rows, r.measure(g))
	}
	fmt.Printf("bench-goals: -benchtime %s -count %d, %s%s\n", benchtime, count, time.Now().UTC().Format("2006-01-02 15:04 UTC"), load())
	printTable(os.Stdout, rows)
	return nil
}

// output is one run's combined output and how it ended.
type output struct {
	text string
	err  error
}

// runner builds each package's test binary once and runs each distinct
// (package, pattern) once, whatever number of goals read it.
type runner struct {
	dir       string
	benchtime string
	count     int
	built     map[string]error
	outs      map[string]output
}

func (r *runner) binary(pkg string) (string, error) {
	bin := filepath.Join(r.dir, pkg+".test")
	if err, ok := r.built[pkg]; ok {
		return bin, err
	}
	out, err := exec.Command("go", "test", "-c", "-o", bin, "./"+pkg).CombinedOutput()
	if err != nil {
		err = fmt.Errorf("%s", failure(string(out)))
	}
	r.built[pkg] = err
	return bin, err
}

func (r *runner) output(g goal) output {
	key := g.pkg + "\x00" + g.bench
	if o, ok := r.outs[key]; ok {
		return o
	}
	// Progress, on stderr: the whole takes minutes; the table goes to stdout.
	fmt.Fprintf(os.Stderr, "running %s -bench '%s'\n", g.pkg, g.bench)
	bin, err := r.binary(g.pkg)
	if err != nil {
		o := output{err: err}
		r.outs[key] = o
		return o
	}
	cmd := exec.Command(bin, "-test.run", "^$", "-test.bench", g.bench,
		"-test.benchtime", r.benchtime, "-test.count", fmt.Sprint(r.count))
	cmd.Dir = g.pkg // a test binary runs in its package's directory
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	err = cmd.Run()
	o := output{text: buf.String(), err: err}
	r.outs[key] = o
	return o
}

// measure is g's row: its ratio and whether it holds, or why there is none.
func (r *runner) measure(g goal) [4]string {
	o := r.output(g)
	if o.text == "" && o.err != nil {
		return row(g, "failed: "+o.err.Error(), "")
	}
	for _, n := range []string{g.name, g.per} {
		if why := marked(o.text, "FAIL", n); n != "" && why != "" {
			return row(g, "failed: "+why, "")
		}
	}
	vs, err := parse(strings.NewReader(o.text)).values(g.name, g.metric, g.per)
	if err != nil {
		if why := marked(o.text, "SKIP", g.name); why != "" {
			return row(g, "skipped ("+why+")", "")
		}
		if o.err != nil {
			return row(g, "failed: "+failure(o.text), "")
		}
		return row(g, "failed: "+err.Error(), "")
	}
	m := median(vs)
	lo, hi := vs[0], vs[0]
	for _, v := range vs {
		lo, hi = min(lo, v), max(hi, v)
	}
	unit := g.metric
	if g.per != "" {
		unit = g.metric + " ÷ " + g.metric
	}
	verdict := "no"
	if holds(m, g.cmp, g.limit) {
		verdict = "yes"
	}
	return row(g, fmt.Sprintf("%s (%s–%s) %s", num(m), num(lo), num(hi), unit), verdict)
}

func row(g goal, measured, verdict string) [4]string {
	return [4]string{g.path, measured, fmt.Sprintf("%s %g", g.cmp, g.limit), verdict}
}

// load is ", load a b c" from /proc/loadavg (Linux), or "" elsewhere:
// the figures mean little without the machine's load beside them.
func load() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) >= 3 {
		return ", load " + strings.Join(f[:3], " ")
	}
	return ""
}

// num prints a ratio to three decimals, nanoseconds to one.
func num(v float64) string {
	if v >= 10 {
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.3f", v)
}
