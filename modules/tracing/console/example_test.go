package console_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"go.opentelemetry.io/otel"

	"github.com/svckit/svc/modules/tracing"
	_ "github.com/svckit/svc/modules/tracing/console" // links the console exporter
)

// SVC_TRACING_EXPORTER=console (here in code) writes each span as a line of
// JSON, to standard output or the writer given.
func Example() {
	var out bytes.Buffer
	tr, err := tracing.FromConfig(tracing.Config{Exporter: "console", Export: tracing.Export{ServiceName: "shop"}},
		tracing.WithConsoleWriter(&out))
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	if err := tr.Open(ctx); err != nil { // installs the global tracer provider
		panic(err)
	}
	_, span := otel.Tracer("shop").Start(ctx, "charge card")
	span.End()
	if err := tr.Close(ctx); err != nil { // flushes, restores the previous provider
		panic(err)
	}
	fmt.Println(strings.Contains(out.String(), `"Name":"charge card"`))
	// Output:
	// true
}
