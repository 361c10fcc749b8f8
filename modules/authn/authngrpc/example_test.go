package authngrpc_test

import (
	"google.golang.org/grpc"

	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/authngrpc"
)

// Every method needs a valid token unless a rule says otherwise; the gate
// is the app's (fxsvc.Authn provides the *authn.Gate).
func ExampleUnaryServerInterceptor() {
	gate, err := authn.New(authn.Discover("https://issuer.example", "orders"))
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
	_ = gs
}
