// Package allexporters links every metrics exporter (otlp-http, otlp-grpc,
// prometheus, console), for apps that let SVC_METRICS_EXPORTER choose any
// of them. Import it for its effect:
//
//	import _ "github.com/svckit/svc/modules/metrics/allexporters"
//
// It costs binary size (gRPC, the OTLP protobufs, the Prometheus client);
// an app that knows its exporter imports that one package instead.
package allexporters

import (
	// Each registers its exporter with package metrics in its init.
	_ "github.com/svckit/svc/modules/metrics/console"
	_ "github.com/svckit/svc/modules/metrics/otlpgrpc"
	_ "github.com/svckit/svc/modules/metrics/otlphttp"
	_ "github.com/svckit/svc/modules/metrics/prometheus"
)
