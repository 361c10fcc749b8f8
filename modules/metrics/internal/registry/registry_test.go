package registry

import (
	"context"
	"testing"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
)

func TestRegisterRefusesProgrammingErrors(t *testing.T) {
	reader := func(context.Context, Setup) (sdkmetric.Reader, error) { return nil, nil }
	Register("test-once", Factory{Reader: reader})
	if _, ok := Readers.Lookup("test-once"); !ok {
		t.Fatal("a registered factory is not found")
	}
	if _, ok := Readers.Lookup("test-never"); ok {
		t.Fatal("an unregistered name is found")
	}
	for name, f := range map[string]Factory{
		"test-once":      {Reader: reader}, // a second registration
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
