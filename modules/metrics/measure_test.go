package metrics_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"strings"
	"testing"

	"github.com/svckit/svc/modules/metrics"
)

type quotaError struct{}

func (*quotaError) Error() string { return "quota" }

// Metrics from measure: the three metrics, their types, units and
// attributes.
func TestMeasureMetrics(t *testing.T) {
	cleanEnv(t)
	m := openProm(t)
	fail := false
	op := metrics.WrapCtxErr(func(ctx context.Context) error {
		if fail {
			return fmt.Errorf("charging: %w", &quotaError{})
		}
		return nil
	}, metrics.Name("svc.billing.charge"), metrics.RecordInFlight())
	plain := metrics.WrapErr(func() error { return nil }, metrics.Name("svc.billing.plain"))
	for range 3 {
		if err := op(ctx); err != nil {
			t.Fatal(err)
		}
	}
	fail = true
	if err := op(ctx); err == nil {
		t.Fatal("the wrapped error must come back")
	}
	_ = plain()
	fams := scrape(t, m)

	if v, ok := sample(fams, "svc_billing_charge_duration_seconds", nil); !ok || v != 4 {
		t.Errorf("duration histogram count = %v (%v), want 4", v, ok)
	}
	if fams["svc_billing_charge_duration_seconds"].GetType().String() != "HISTOGRAM" {
		t.Error("duration must be a histogram")
	}
	// Buckets fit seconds, not the SDK's millisecond-shaped default.
	var bounds []float64
	for _, b := range fams["svc_billing_charge_duration_seconds"].GetMetric()[0].GetHistogram().GetBucket() {
		bounds = append(bounds, b.GetUpperBound())
	}
	if fmt.Sprint(bounds) != fmt.Sprint(append(metrics.SecondsBuckets, math.Inf(1))) {
		t.Errorf("duration buckets = %v, want %v", bounds, metrics.SecondsBuckets)
	}
	if v, ok := sample(fams, "svc_billing_charge_calls_total", map[string]string{"outcome": "success"}); !ok || v != 3 {
		t.Errorf("success calls = %v (%v)", v, ok)
	}
	if v, ok := sample(fams, "svc_billing_charge_calls_total", map[string]string{"outcome": "error", "error_type": "metrics_test.quotaError"}); !ok || v != 1 {
		t.Errorf("error calls = %v (%v): %v", v, ok, fams["svc_billing_charge_calls_total"])
	}
	for _, mm := range fams["svc_billing_charge_calls_total"].GetMetric() {
		for _, l := range mm.GetLabel() {
			if l.GetName() == "error_type" && l.GetValue() != "metrics_test.quotaError" {
				t.Errorf("error.type = %q", l.GetValue())
			}
		}
		success := false
		hasType := false
		for _, l := range mm.GetLabel() {
			success = success || (l.GetName() == "outcome" && l.GetValue() == "success")
			hasType = hasType || l.GetName() == "error_type"
		}
		if success && hasType {
			t.Error("a success carries no error.type")
		}
	}
	if v, ok := sample(fams, "svc_billing_charge_active", nil); !ok || v != 0 {
		t.Errorf("in-flight after return = %v (%v), want 0", v, ok)
	}
	if _, ok := fams["svc_billing_plain_active"]; ok {
		t.Error("<name>.active only with RecordInFlight")
	}
	if v, ok := sample(fams, "svc_billing_plain_calls_total", map[string]string{"outcome": "success"}); !ok || v != 1 {
		t.Errorf("plain calls = %v (%v)", v, ok)
	}
}

// <name>.active rises on entry and falls on return.
func TestMeasureInFlight(t *testing.T) {
	cleanEnv(t)
	m := openProm(t)
	var inside float64
	op := metrics.WrapCtxErr(func(ctx context.Context) error {
		inside, _ = sample(scrape(t, m), "svc_inflight_op_active", nil)
		return nil
	}, metrics.Name("svc.inflight.op"), metrics.RecordInFlight())
	_ = op(ctx)
	if inside != 1 {
		t.Fatalf("active during the call = %v, want 1", inside)
	}
	if after, _ := sample(scrape(t, m), "svc_inflight_op_active", nil); after != 0 {
		t.Fatalf("active after = %v", after)
	}
}

// A panic is recorded as an error and keeps unwinding; in-flight falls.
func TestMeasurePanic(t *testing.T) {
	cleanEnv(t)
	m := openProm(t)
	boom := metrics.Wrap(func() { panic("boom") }, metrics.Name("svc.boom"), metrics.RecordInFlight())
	func() {
		defer func() {
			if r := recover(); r != "boom" {
				t.Fatalf("recovered %v, want the original panic", r)
			}
		}()
		boom()
	}()
	fams := scrape(t, m)
	if v, ok := sample(fams, "svc_boom_calls_total", map[string]string{"outcome": "error", "error_type": "panic"}); !ok || v != 1 {
		t.Fatalf("panic calls = %v (%v)", v, ok)
	}
	if v, _ := sample(fams, "svc_boom_active", nil); v != 0 {
		t.Fatalf("active after panic = %v", v)
	}
}

// Every wrapper shape returns what the function returns and records one
// call.
func TestWrapShapes(t *testing.T) {
	cleanEnv(t)
	m := openProm(t)
	errX := errors.New("x")
	type key struct{}
	cctx := context.WithValue(ctx, key{}, "v")
	gotCtx := func(c context.Context) { // the caller's context reaches fn
		if c.Value(key{}) != "v" {
			t.Error("wrapper must pass the caller's context")
		}
	}
	metrics.Wrap(func() {}, metrics.Name("s.a"))()
	if err := metrics.WrapErr(func() error { return errX }, metrics.Name("s.b"))(); err != errX {
		t.Error("WrapErr result")
	}
	if v := metrics.WrapResult(func() int { return 42 }, metrics.Name("s.c"))(); v != 42 {
		t.Error("WrapResult result")
	}
	if v, err := metrics.WrapResultErr(func() (string, error) { return "ok", errX }, metrics.Name("s.d"))(); v != "ok" || err != errX {
		t.Error("WrapResultErr result")
	}
	metrics.WrapCtx(func(c context.Context) { gotCtx(c) }, metrics.Name("s.e"))(cctx)
	if err := metrics.WrapCtxErr(func(c context.Context) error { gotCtx(c); return nil }, metrics.Name("s.f"))(cctx); err != nil {
		t.Error("WrapCtxErr result")
	}
	if v := metrics.WrapCtxResult(func(c context.Context) []int { gotCtx(c); return []int{1} }, metrics.Name("s.g"))(cctx); len(v) != 1 {
		t.Error("WrapCtxResult result")
	}
	if v, err := metrics.WrapCtxResultErr(func(c context.Context) (*int, error) { gotCtx(c); return nil, errX }, metrics.Name("s.h"))(cctx); v != nil || err != errX {
		t.Error("WrapCtxResultErr result")
	}
	fams := scrape(t, m)
	for _, n := range []string{"a", "b", "c", "d", "e", "f", "g", "h"} {
		if v, ok := sample(fams, "s_"+n+"_calls_total", nil); !ok || v != 1 {
			t.Errorf("s.%s calls = %v (%v)", n, v, ok)
		}
	}
	for _, n := range []string{"b", "d", "h"} {
		if _, ok := sample(fams, "s_"+n+"_calls_total", map[string]string{"outcome": "error", "error_type": "errors.errorString"}); !ok {
			t.Errorf("s.%s error not recorded", n)
		}
	}
	if metrics.Wrap(nil) != nil || metrics.WrapCtxResultErr[int](nil) != nil {
		t.Error("wrapping nil returns nil")
	}
}

// No component active: nothing recorded, no allocation; a component that
// opens after wrap time is recorded into.
func TestMeasureInactiveThenActive(t *testing.T) {
	cleanEnv(t)
	calls := 0
	op := metrics.WrapCtxErr(func(context.Context) error { calls++; return nil }, metrics.Name("svc.late.op"))
	allocs := testing.AllocsPerRun(100, func() { _ = op(ctx) })
	if allocs != 0 {
		t.Fatalf("inactive wrapper allocates %v per call", allocs)
	}
	if calls != 101 {
		t.Fatalf("fn ran %d times", calls)
	}
	off, err := metrics.New() // auto-disabled
	if err != nil {
		t.Fatal(err)
	}
	if err := off.Open(ctx); err != nil {
		t.Fatal(err)
	}
	_ = op(ctx) // still a no-op: the inactive component installs nothing
	_ = off.Close(ctx)

	m := openProm(t)
	_ = op(ctx)
	if v, ok := sample(scrape(t, m), "svc_late_op_calls_total", nil); !ok || v != 1 {
		t.Fatalf("calls after activation = %v (%v), want 1", v, ok)
	}
	allocs = testing.AllocsPerRun(100, func() { _ = op(ctx) })
	t.Logf("active wrapper: %v allocs per call", allocs)
}

// An error's type, never its message, becomes error.type.
func TestWrapRecordsTheErrorTypeNotItsMessage(t *testing.T) {
	cleanEnv(t)
	op := metrics.WrapErr(func() error {
		return &fs.PathError{Op: "open", Path: "/secret/path", Err: fs.ErrNotExist}
	}, metrics.Name("svc.hand"))
	_ = op() // inactive: nothing, no panic
	m := openProm(t)
	_ = op()
	fams := scrape(t, m)
	if _, ok := sample(fams, "svc_hand_calls_total", map[string]string{"error_type": "fs.PathError"}); !ok {
		t.Fatalf("error.type for *fs.PathError: %v", fams["svc_hand_calls_total"])
	}
	if strings.Contains(fams["svc_hand_calls_total"].String(), "/secret/path") {
		t.Fatal("an error's message must never become an attribute")
	}
}

func TestErrorType(t *testing.T) {
	cases := []struct {
		err  error
		want string
	}{
		{errors.New("x"), "errors.errorString"},
		{&quotaError{}, "metrics_test.quotaError"},
		{fmt.Errorf("a: %w", fmt.Errorf("b: %w", &quotaError{})), "metrics_test.quotaError"},
		{fmt.Errorf("no wrap %v", 1), "errors.errorString"},
		{errors.Join(errors.New("a"), errors.New("b")), "errors.joinError"},
		{context.DeadlineExceeded, "context.deadlineExceededError"},
		{fmt.Errorf("%w and %w", errors.New("a"), errors.New("b")), "fmt.wrapErrors"},
	}
	for _, c := range cases {
		if got := metrics.ErrorType(c.err); got != c.want {
			t.Errorf("ErrorType(%v) = %q, want %q", c.err, got, c.want)
		}
	}
}

type repo struct{}

func (repo) Get() error              { return nil }
func (*repo) Put() error             { return nil }
func topLevel(context.Context) error { return nil }
func generic[T any]() T              { var z T; return z }

// Default base name: package path and function name, lowercased, dotted.
func TestDefaultName(t *testing.T) {
	const pkg = "github.com.svckit.svc.modules.metrics_test."
	r := &repo{}
	cases := []struct {
		fn   any
		want string
	}{
		{topLevel, pkg + "toplevel"},
		{repo{}.Get, pkg + "repo.get"},
		{r.Put, pkg + "repo.put"},
		{(*repo).Put, pkg + "repo.put"},
		{generic[int], pkg + "generic"},
		{func() {}, pkg + "testdefaultname.func1"},
		{nil, "anonymous"},
		{42, "anonymous"},
	}
	for _, c := range cases {
		if got := metrics.FuncName(c.fn); got != c.want {
			t.Errorf("FuncName = %q, want %q", got, c.want)
		}
	}
	// A wrapper without Name uses it.
	cleanEnv(t)
	m := openProm(t)
	_ = metrics.WrapCtxErr(topLevel)(ctx)
	if _, ok := sample(scrape(t, m), "github_com_svckit_svc_modules_metrics_test_toplevel_calls_total", nil); !ok {
		t.Fatal("default-named wrapper did not record")
	}
}
