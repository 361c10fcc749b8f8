// Package otlptest holds what the metrics and tracing tests share to stand
// in for a collector. It is for tests only.
package otlptest

import (
	"net"
	"testing"

	"google.golang.org/grpc"
)

// ServeGRPC serves a gRPC server with the services register adds on
// 127.0.0.1, stops it when the test ends, and returns its address as an
// http:// URL (plaintext), the form the OTLP gRPC exporters take.
func ServeGRPC(t testing.TB, register func(*grpc.Server)) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := grpc.NewServer()
	register(s)
	done := make(chan struct{})
	go func() { defer close(done); _ = s.Serve(lis) }()
	t.Cleanup(func() { s.Stop(); <-done })
	return "http://" + lis.Addr().String()
}
