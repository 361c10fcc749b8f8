// Command quickstart is an orders API behind bearer tokens whose replicas
// share their idempotency records on Redis: the service docs/quickstart.md
// builds, which quotes this file and main_test.go whole.
package main

import (
	"go.uber.org/fx"

	"github.com/svckit/svc/fxsvc"
	"github.com/svckit/svc/modules/authn/bearer"
	"github.com/svckit/svc/modules/redisstore/fxredis"
)

func main() {
	fxsvc.Main(service(nil)) // nil: the verifier comes from SVC_AUTHN_ISSUER and SVC_AUTHN_AUDIENCE
}

// service is the whole app. main passes a nil verifier; a test passes its
// own issuer's.
func service(v bearer.Verifier) fx.Option {
	return fx.Options(
		fxsvc.Errors(),      // RFC 9457 problem+json for every error
		fxsvc.Authn(v),      // every route needs a valid bearer token unless marked otherwise
		fxsvc.Idempotency(), // the idempotency.Required marker on POST /orders
		fxredis.Redis(),     // step 6: on Redis when SVC_REDIS_URL is set, else in memory
		fx.Provide(newRouter),
		fxsvc.Serve(), // SVC_HTTP_ADDR, default 127.0.0.1:8080
	)
}
