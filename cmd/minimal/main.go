// Command minimal is the smallest svc app: problem+json errors and one
// handler served. It exists so a test can hold what such an app links.
package main

import (
	"net/http"

	"go.uber.org/fx"

	"github.com/svckit/svc/fxsvc"
)

func main() {
	fxsvc.Main(
		fxsvc.Errors(),
		fx.Provide(func() http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				_, _ = w.Write([]byte("ok\n"))
			})
		}),
		fxsvc.Serve(),
	)
}
