package otlpgrpc_test

import (
	"context"
	"fmt"
	"net"

	"go.opentelemetry.io/otel"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/svckit/svc/modules/tracing"
	_ "github.com/svckit/svc/modules/tracing/otlpgrpc" // links the otlp-grpc exporter
	"github.com/svckit/svc/secret"
)

// SVC_TRACING_EXPORTER=otlp-grpc, here in code.
func Example() {
	// A stand-in for the collector on 127.0.0.1: it answers every call
	// with an empty message and says which method was called.
	got := make(chan string, 10)
	collector := grpc.NewServer(grpc.UnknownServiceHandler(func(_ any, stream grpc.ServerStream) error {
		method, _ := grpc.MethodFromServerStream(stream)
		got <- method
		if err := stream.RecvMsg(&emptypb.Empty{}); err != nil {
			return err
		}
		return stream.SendMsg(&emptypb.Empty{})
	}))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	go func() { _ = collector.Serve(ln) }()
	defer collector.Stop()

	tr, err := tracing.FromConfig(tracing.Config{
		Exporter: "otlp-grpc",
		Export:   tracing.Export{Endpoint: secret.URL("http://" + ln.Addr().String()), ServiceName: "shop"},
	})
	if err != nil {
		panic(err)
	}
	// Open and close it with the app (fxsvc.Tracing() does).
	if err := tr.Open(context.Background()); err != nil {
		panic(err)
	}
	_, span := otel.Tracer("shop").Start(context.Background(), "charge card")
	span.End()
	_ = tr.Close(context.Background()) // flushes the span
	fmt.Println(<-got)
	// Output:
	// /opentelemetry.proto.collector.trace.v1.TraceService/Export
}
