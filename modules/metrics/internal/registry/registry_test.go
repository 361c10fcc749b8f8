package registry

import (
	"context"
	"strconv"
	"testing"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
)

// runs makes each run's name its own: the registry is the process's, and
// go test -count=N runs the test N times in one process.
var runs int

func TestRegisterRefusesProgrammingErrors(t *testing.T) {
	runs++
	once := "test-once-" + strconv.Itoa(runs)
	reader := func(context.Context, Setup) (sdkmetric.Reader, error) { return nil, nil }
	Register(once, Factory{Reader: reader})
	if _, ok := Readers.Lookup(once); !ok {
		t.Fatal("a registered factory is not found")
	}
	if _, ok := Readers.Lookup("test-never"); ok {
		t.Fatal("an unregistered name is found")
	}
	for name, f := range map[string]Factory{
		once:             {Reader: reader}, // a second registration
		"test-no-reader": {},
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("Register(%q) did not panic", name)
				}
			}()
			Register(name, f)
		})
	}
}
