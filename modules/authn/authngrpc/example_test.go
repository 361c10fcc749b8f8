package authngrpc_test

import (
	"context"
	"fmt"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/authngrpc"
	"github.com/svckit/svc/modules/authn/bearer"
)

// Every method needs a valid token unless a rule says otherwise; the gate
// is the app's (fxsvc.Authn provides the *authn.Gate).
func ExampleUnaryServerInterceptor() {
	gate, err := authn.New(bearer.New("https://issuer.example", "orders"))
	if err != nil {
		panic(err)
	}
	rules := []authngrpc.Rule{
		authngrpc.Anonymous("/grpc.health.v1.Health/"),              // every method of the service
		authngrpc.Require("/orders.v1.Orders/CreateOrder", "write"), // one method, one scope
	}
	gs := grpc.NewServer(
		grpc.UnaryInterceptor(authngrpc.UnaryServerInterceptor(gate, rules...)),
		grpc.StreamInterceptor(authngrpc.StreamServerInterceptor(gate, rules...)),
	)
	defer gs.Stop()

	// What the interceptor answers a call without a token, method by method.
	unary := authngrpc.UnaryServerInterceptor(gate, rules...)
	ctx := metadata.NewIncomingContext(context.Background(), metadata.MD{}) // no authorization
	for _, method := range []string{"/grpc.health.v1.Health/Check", "/orders.v1.Orders/CreateOrder"} {
		_, err := unary(ctx, nil, &grpc.UnaryServerInfo{FullMethod: method}, func(context.Context, any) (any, error) {
			return "ok", nil
		})
		fmt.Println(method, status.Code(err))
	}
	// Output:
	// /grpc.health.v1.Health/Check OK
	// /orders.v1.Orders/CreateOrder Unauthenticated
}
