package tracingtest_test

import (
	"context"
	"testing"

	"go.opentelemetry.io/otel"

	"github.com/svckit/svc/modules/tracing"
	_ "github.com/svckit/svc/modules/tracing/otlphttp"
	"github.com/svckit/svc/modules/tracing/tracingtest"
	"github.com/svckit/svc/secret"
)

// testChargeIsTraced is a test function of the app's (TestChargeIsTraced
// in its own _test.go file): a real OTLP/HTTP receiver on 127.0.0.1, and
// the spans it received.
func testChargeIsTraced(t *testing.T) {
	rcv := tracingtest.NewReceiver(t)
	tr, err := tracing.FromConfig(tracing.Config{Export: tracing.Export{Endpoint: secret.URL(rcv.URL), ServiceName: "shop"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.Open(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tr.Close(context.Background()) })

	_, span := otel.Tracer("shop").Start(t.Context(), "charge card")
	span.End()
	tracingtest.Flush(t, tr)
	if _, ok := rcv.Find("charge card"); !ok {
		t.Fatalf("spans received: %v", rcv.Spans())
	}
}

// In a test function: a real OTLP/HTTP receiver on 127.0.0.1, and the
// spans it received.
func ExampleNewReceiver() {
	// Compile-only: the steps need a test's *testing.T, which an Example
	// has not; TestExampleNewReceiver runs them.
	_ = testChargeIsTraced
}
