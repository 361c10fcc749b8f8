package svctest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"go.uber.org/fx"

	"github.com/svckit/svc/fxsvc"
	"github.com/svckit/svc/svctest"
)

// echo answers with what the request carried, as JSON.
func echo(w http.ResponseWriter, r *http.Request) {
	var body any
	_ = json.NewDecoder(r.Body).Decode(&body)
	_ = json.NewEncoder(w).Encode(map[string]any{
		"method":        r.Method,
		"path":          r.URL.Path,
		"query":         r.URL.Query(),
		"authorization": r.Header.Get("Authorization"),
		"if_match":      r.Header.Values("If-Match"),
		"content_type":  r.Header.Get("Content-Type"),
		"body":          body,
	})
}

// A request carries what its builder was given: bearer token, headers
// (repeated ones too), query parameters added to the path's own, and a
// JSON body with its media type.
func TestRequestCarriesHeadersQueryAndJSON(t *testing.T) {
	app := svctest.Start(t, fx.Provide(func() http.Handler { return http.HandlerFunc(echo) }), fxsvc.Serve())
	r := app.Request("PUT", "/orders/1?a=1").
		Token("tok").
		Header("If-Match", `"v1"`).Header("If-Match", `"v2"`).
		Query("b", "two words").
		JSON(map[string]int{"qty": 3}).
		Send(t)
	if r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	var got struct {
		Method        string              `json:"method"`
		Path          string              `json:"path"`
		Query         map[string][]string `json:"query"`
		Authorization string              `json:"authorization"`
		IfMatch       []string            `json:"if_match"`
		ContentType   string              `json:"content_type"`
		Body          map[string]int      `json:"body"`
	}
	r.DecodeJSON(t, &got)
	if got.Method != "PUT" || got.Path != "/orders/1" || got.Authorization != "Bearer tok" ||
		got.ContentType != "application/json" || got.Body["qty"] != 3 ||
		strings.Join(got.Query["a"], ",") != "1" || strings.Join(got.Query["b"], ",") != "two words" ||
		strings.Join(got.IfMatch, ",") != `"v1","v2"` {
		t.Fatalf("the app saw %+v", got)
	}
	if r := app.Request("POST", "/x").Body("text/plain", "hi").Send(t); !strings.Contains(r.Body, `"content_type":"text/plain"`) {
		t.Fatalf("Body: %s", r.Body)
	}
	if r := app.Request("GET", "/y").Token("").Send(t); !strings.Contains(r.Body, `"authorization":""`) {
		t.Fatalf(`Token("") sent a credential: %s`, r.Body)
	}
}

// recordingTB keeps what the app logs through t.Log.
type recordingTB struct {
	testing.TB
	mu    sync.Mutex
	lines []string
}

func (r *recordingTB) Log(args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lines = append(r.lines, fmt.Sprint(args...))
}

// Without a logger of its own, the app's log goes to t.Log, one record a
// call, not to standard error.
func TestAppLogGoesToTheTestLog(t *testing.T) {
	rec := &recordingTB{TB: t}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { panic("boom") })
	app := svctest.Start(rec, fx.Provide(func() http.Handler { return h }), fxsvc.Serve())
	// net/http answers a handler's panic by cutting the connection.
	if resp, err := app.Client.Get(app.URL + "/"); err == nil {
		resp.Body.Close()
		t.Fatalf("the panicking handler answered %d", resp.StatusCode)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	for _, l := range rec.lines {
		if strings.Contains(l, "boom") {
			if strings.HasSuffix(l, "\n") {
				t.Fatalf("a record keeps its newline: %q", l)
			}
			return
		}
	}
	t.Fatalf("the panic's record is not in the test log: %q", rec.lines)
}
