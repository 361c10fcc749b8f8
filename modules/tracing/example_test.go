package tracing_test

import (
	"context"
	"fmt"

	"go.opentelemetry.io/otel"

	"github.com/svckit/svc/modules/tracing"
	_ "github.com/svckit/svc/modules/tracing/otlphttp" // the exporter SVC_TRACING_ENDPOINT selects
)

// Without an endpoint the component is inactive and costs nothing, so an
// app registers it unconditionally (fxsvc.Tracing() in an fx app). New
// reads SVC_TRACING_* and the OTEL_* fallbacks; FromConfig, used here so
// the output does not depend on the environment, reads none.
func ExampleFromConfig() {
	tr, err := tracing.FromConfig(tracing.Config{})
	if err != nil {
		panic(err) // a *tracing.ConfigError naming the variable to fix
	}
	ctx := context.Background()
	before := otel.GetTracerProvider()
	if err := tr.Open(ctx); err != nil {
		panic(err)
	}
	defer tr.Close(ctx)
	fmt.Println("global provider unchanged:", otel.GetTracerProvider() == before)
	// Output:
	// global provider unchanged: true
}
