package lifecycle_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"go.uber.org/fx"
	"go.uber.org/fx/fxtest"

	"github.com/svckit/svc/lifecycle"
)

type recorder struct {
	name    string
	log     *[]string
	openErr error
}

func (r recorder) Name() string { return r.name }
func (r recorder) Open(context.Context) error {
	*r.log = append(*r.log, "open "+r.name)
	return r.openErr
}
func (r recorder) Close(context.Context) error {
	*r.log = append(*r.log, "close "+r.name)
	return nil
}

func register(c lifecycle.Component) fx.Option {
	return fx.Invoke(func(lc fx.Lifecycle) { lifecycle.Register(lc, c) })
}

func TestOpenInOrderCloseInReverse(t *testing.T) {
	var log []string
	app := fxtest.New(t,
		register(recorder{name: "a", log: &log}),
		register(recorder{name: "b", log: &log}),
		register(recorder{name: "c", log: &log}),
	)
	app.RequireStart().RequireStop()
	want := "open a,open b,open c,close c,close b,close a"
	if got := strings.Join(log, ","); got != want {
		t.Fatalf("order = %s, want %s", got, want)
	}
}

func TestOpenErrorNamesComponentAndStopsStartup(t *testing.T) {
	var log []string
	boom := errors.New("boom")
	app := fx.New(fx.NopLogger,
		register(recorder{name: "first", log: &log}),
		register(recorder{name: "broken", log: &log, openErr: boom}),
		register(recorder{name: "never", log: &log}),
	)
	err := app.Start(context.Background())
	if err == nil {
		t.Fatal("start succeeded, want an error")
	}
	var oe *lifecycle.Error
	if !errors.As(err, &oe) || oe.Op != "open" || oe.Component != "broken" || !errors.Is(err, boom) {
		t.Fatalf("err = %v, want an OpenError naming broken that wraps boom", err)
	}
	if !strings.Contains(err.Error(), "open broken") {
		t.Fatalf("message %q does not name the component", err)
	}
	// fx rolls back what opened: first is closed, never is never opened.
	if got := strings.Join(log, ","); got != "open first,open broken,close first" {
		t.Fatalf("log = %s", got)
	}
}

func TestSecondSingletonFailsNew(t *testing.T) {
	app := fx.New(fx.NopLogger,
		lifecycle.Singleton("metrics", "fxsvc.Metrics(a)"),
		lifecycle.Singleton("metrics", "fxsvc.Metrics(b)"),
	)
	err := app.Err()
	var se *lifecycle.SingletonError
	if !errors.As(err, &se) {
		t.Fatalf("fx.New err = %v, want a SingletonError", err)
	}
	if se.Kind != "metrics" || !strings.Contains(err.Error(), "only one metrics component") {
		t.Fatalf("unexpected error: %v", err)
	}
}

func TestDistinctSingletonKindsCoexist(t *testing.T) {
	app := fx.New(fx.NopLogger,
		lifecycle.Singleton("metrics", "m"),
		lifecycle.Singleton("errors", "e"),
	)
	if err := app.Err(); err != nil {
		t.Fatalf("fx.New: %v", err)
	}
}
