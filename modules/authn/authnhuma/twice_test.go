package authnhuma_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/danielgtaylor/huma/v2"
	"github.com/go-chi/chi/v5"

	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/authnhuma"
)

// An operation registered twice for one method and path, the second
// Anonymous, is refused at registration naming both (issue 24 item 8):
// chi would serve the second alone, dropping the first's scopes.
func TestAnOperationRegisteredTwiceIsRefused(t *testing.T) {
	apis := map[string]func() huma.API{
		"NewChi": func() huma.API { return authnhuma.NewChi(chi.NewRouter(), huma.DefaultConfig("T", "1")) },
		"NewGo":  func() huma.API { return authnhuma.NewGo(http.NewServeMux(), huma.DefaultConfig("T", "1")) },
	}
	h := func(context.Context, *struct{}) (*struct{}, error) { return nil, nil }
	for name, build := range apis {
		t.Run(name, func(t *testing.T) {
			api := build()
			first := huma.Operation{OperationID: "report", Method: http.MethodGet, Path: "/report"}
			authnhuma.Require("read")(&first)
			huma.Register(api, first, h)
			huma.Register(api, huma.Operation{OperationID: "other", Method: http.MethodGet, Path: "/other"}, h)
			got := func() (msg string) {
				defer func() { msg = fmt.Sprint(recover()) }()
				op := huma.Operation{OperationID: "report-public", Method: http.MethodGet, Path: "/report"}
				authnhuma.Anonymous(&op)
				huma.Register(api, op, h)
				return ""
			}()
			for _, want := range []string{"GET /report is registered twice", `"report" (authnhuma.Require(read))`, `"report-public" (authnhuma.Anonymous)`} {
				if !strings.Contains(got, want) {
					t.Fatalf("panic %q does not say %q", got, want)
				}
			}
		})
	}
}

// An operation on a route the app registered on its authn.NewChiRouter
// itself is refused naming where the app registered each, not Huma's code
// that handed the operation to chi.
func TestAnOperationOverAnAppsChiRouteNamesTheApp(t *testing.T) {
	r := authn.NewChiRouter()
	r.Get("/report", func(http.ResponseWriter, *http.Request) {})
	api := authnhuma.NewChi(r, huma.DefaultConfig("T", "1"))
	got := func() (msg string) {
		defer func() { msg = fmt.Sprint(recover()) }()
		huma.Get(api, "/report", func(context.Context, *struct{}) (*struct{}, error) { return nil, nil })
		return ""
	}()
	if !strings.Contains(got, `"GET /report" is registered twice`) || strings.Count(got, "twice_test.go:") != 2 {
		t.Fatalf("panic %q does not name both places in this file", got)
	}
}
