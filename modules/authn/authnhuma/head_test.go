package authnhuma_test

import (
	"net/http"
	"testing"

	svcerrors "github.com/svckit/svc/modules/errors"
)

// HEAD on a Huma GET operation is answered as GET without the body, on
// both adapters, and judged by the operation's guard (issue 24 item 16).
func TestHeadOnHumaOperationsIsJudgedAndServedAsGet(t *testing.T) {
	cases := []struct {
		path   string
		token  string
		status int
	}{
		{"/api/me", "", 401},
		{"/api/me", "alice-token", 200},
		{"/api/hello", "", 200},
		{"/api/admin", "alice-token", 403},
		{"/api/admin", "admin-token", 200},
		{"/api/admin-area/stats", "admin-token", 403},
		{"/api/admin-area/stats", "stats-token", 200},
		{"/api/public/info", "", 200},
	}
	each(t, appOptions{}, func(t *testing.T, a *app, _ string, res *svcerrors.Responses) {
		srv := a.serve(t, res)
		for _, tc := range cases {
			var h http.Header
			if tc.token != "" {
				h = bearerHeader(tc.token)
			}
			got := do(t, srv, http.MethodHead, tc.path, h, "")
			if got.status != tc.status || got.body != "" {
				t.Fatalf("HEAD %s (%q): %d %q, want %d and no body", tc.path, tc.token, got.status, got.body, tc.status)
			}
			if tc.status == 401 && got.header.Get("WWW-Authenticate") == "" {
				t.Fatalf("HEAD %s: a 401 without a challenge", tc.path)
			}
			if tc.status == 200 {
				get := do(t, srv, http.MethodGet, tc.path, h, "")
				if get.status != 200 || got.header.Get("Content-Type") != get.header.Get("Content-Type") {
					t.Fatalf("HEAD %s: Content-Type %q, GET %d %q", tc.path, got.header.Get("Content-Type"), get.status, get.header.Get("Content-Type"))
				}
			}
		}
	})
}
