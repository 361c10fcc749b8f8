package metrics_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/svckit/svc/modules/metrics"
	metricsprom "github.com/svckit/svc/modules/metrics/prometheus"
)

type problemBody struct {
	Type     string `json:"type"`
	Title    string `json:"title"`
	Status   int    `json:"status"`
	Detail   string `json:"detail"`
	Instance string `json:"instance"`
}

// checkProblem asserts an RFC 9457 refusal: status, media type, safety
// headers and body members.
func checkProblem(t *testing.T, rec *httptest.ResponseRecorder, status int, path string) problemBody {
	t.Helper()
	if rec.Code != status {
		t.Fatalf("status = %d, want %d (%s)", rec.Code, status, rec.Body)
	}
	h := rec.Header()
	if h.Get("Content-Type") != "application/problem+json" || h.Get("Cache-Control") != "no-store" || h.Get("X-Content-Type-Options") != "nosniff" {
		t.Fatalf("headers = %v", h)
	}
	var p problemBody
	if err := json.Unmarshal(rec.Body.Bytes(), &p); err != nil {
		t.Fatalf("body %q: %v", rec.Body, err)
	}
	if p.Type != "about:blank" || p.Status != status || p.Title != http.StatusText(status) || p.Instance != path || p.Detail == "" {
		t.Fatalf("problem = %+v", p)
	}
	return p
}

func serve(h http.Handler, method, path string) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(method, path, nil))
	return rec
}

func TestHandlerServesExposition(t *testing.T) {
	cleanEnv(t)
	m := openProm(t, metrics.WithConfig(metrics.Config{Export: metrics.Export{ServiceName: "shop"}}))
	c, _ := m.Counter("svc.scraped")
	c.Add(ctx, 1)
	rec := serve(metrics.Handler(m), http.MethodGet, "/metrics")
	if rec.Code != 200 || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/plain") {
		t.Fatalf("scrape: %d %v", rec.Code, rec.Header())
	}
	fams := scrape(t, m)
	if v, ok := sample(fams, "svc_scraped_total", nil); !ok || v != 1 {
		t.Fatalf("svc_scraped_total = %v (%v)", v, ok)
	}
	if _, ok := sample(fams, "target_info", map[string]string{"service_name": "shop"}); !ok {
		t.Fatal("target_info must carry service.name")
	}
	if head := serve(metrics.Handler(m), http.MethodHead, "/metrics"); head.Code != 200 {
		t.Fatalf("HEAD: %d", head.Code)
	}
}

// The doc's rule: the exposition is in the format the scraper negotiates,
// text by default. A protobuf Accept gets the delimited protobuf format,
// an OpenMetrics one (not enabled) falls back to text.
func TestHandlerNegotiatesFormat(t *testing.T) {
	cleanEnv(t)
	m := openProm(t)
	c, _ := m.Counter("svc.negotiated")
	c.Add(ctx, 1)
	for _, tc := range []struct{ accept, want string }{
		{"", "text/plain; version=0.0.4"},
		{"application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited", "application/vnd.google.protobuf"},
		{"application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5", "text/plain; version=0.0.4"},
	} {
		req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
		if tc.accept != "" {
			req.Header.Set("Accept", tc.accept)
		}
		rec := httptest.NewRecorder()
		metrics.Handler(m).ServeHTTP(rec, req)
		if rec.Code != 200 || !strings.HasPrefix(rec.Header().Get("Content-Type"), tc.want) || rec.Body.Len() == 0 {
			t.Errorf("Accept %q: %d %q, want %q", tc.accept, rec.Code, rec.Header().Get("Content-Type"), tc.want)
		}
	}
}

// With another exporter the endpoint answers a clear 404 problem that does
// not name the backend.
func TestHandlerNotPrometheus(t *testing.T) {
	cleanEnv(t)
	otlp, err := metrics.FromConfig(metrics.Config{Exporter: "otlp-http", Export: metrics.Export{Endpoint: "https://u:p@collector.example"}})
	if err != nil {
		t.Fatal(err)
	}
	none, _ := metrics.FromConfig(metrics.Config{})
	console, _ := metrics.FromConfig(metrics.Config{Exporter: "console"})
	for name, m := range map[string]*metrics.Metrics{"otlp": otlp, "none": none, "console": console, "nil": nil} {
		t.Run(name, func(t *testing.T) {
			p := checkProblem(t, serve(metrics.Handler(m), http.MethodGet, "/metrics"), 404, "/metrics")
			if strings.Contains(strings.ToLower(p.Detail), "otlp") || strings.Contains(p.Detail, "collector") {
				t.Fatalf("detail names the backend: %q", p.Detail)
			}
		})
	}
}

func TestHandlerNotRunning(t *testing.T) {
	cleanEnv(t)
	m, _ := metrics.FromConfig(metrics.Config{Exporter: "prometheus"})
	rec := serve(metrics.Handler(m), http.MethodGet, "/metrics")
	checkProblem(t, rec, 503, "/metrics")
	if rec.Header().Get("Retry-After") == "" {
		t.Fatal("503 carries Retry-After")
	}
	_ = m.Open(ctx)
	if rec := serve(metrics.Handler(m), http.MethodGet, "/metrics"); rec.Code != 200 {
		t.Fatalf("open: %d", rec.Code)
	}
	_ = m.Close(ctx)
	checkProblem(t, serve(metrics.Handler(m), http.MethodGet, "/metrics"), 503, "/metrics")
}

func TestHandlerMethod(t *testing.T) {
	cleanEnv(t)
	m := openProm(t)
	for _, method := range []string{http.MethodPost, http.MethodPut, http.MethodDelete} {
		rec := serve(metrics.Handler(m), method, "/metrics")
		checkProblem(t, rec, 405, "/metrics")
		if rec.Header().Get("Allow") != "GET, HEAD" {
			t.Fatalf("Allow = %q", rec.Header().Get("Allow"))
		}
	}
}

// Each component has its own registry: two prometheus components in one
// process do not see each other's instruments, and a scrape never fails on
// a duplicate collector.
func TestOwnRegistryPerComponent(t *testing.T) {
	cleanEnv(t)
	a := openProm(t)
	ca, _ := a.Counter("svc.only.a")
	b := openProm(t)
	cb, _ := b.Counter("svc.only.b")
	ca.Add(ctx, 1)
	cb.Add(ctx, 1)
	fa, fb := scrape(t, a), scrape(t, b)
	if _, ok := fa["svc_only_b_total"]; ok {
		t.Error("a sees b's instrument")
	}
	if _, ok := fb["svc_only_a_total"]; ok {
		t.Error("b sees a's instrument")
	}
	if metricsprom.Registry(a) == metricsprom.Registry(b) {
		t.Error("registries must differ")
	}
}

// Against a real listener, as a scraper sees it.
func TestScrapeOverHTTP(t *testing.T) {
	cleanEnv(t)
	m := openProm(t)
	srv := httptest.NewServer(metrics.Handler(m))
	t.Cleanup(srv.Close)
	resp, err := http.Get(srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
}

// Handler(nil) serves the running app's active component.
func TestHandlerNilServesCurrent(t *testing.T) {
	cleanEnv(t)
	checkProblem(t, serve(metrics.Handler(nil), http.MethodGet, "/metrics"), 404, "/metrics")
	m := openProm(t)
	if metrics.Current() != m {
		t.Fatal("Current must be the open component")
	}
	c, _ := m.Counter("svc.current.hits")
	c.Add(ctx, 1)
	rec := serve(metrics.Handler(nil), http.MethodGet, "/metrics")
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), "svc_current_hits_total") {
		t.Fatalf("Handler(nil): %d", rec.Code)
	}
	_ = m.Close(ctx)
	if metrics.Current() != nil {
		t.Fatal("no current component after close")
	}
	checkProblem(t, serve(metrics.Handler(nil), http.MethodGet, "/metrics"), 404, "/metrics")
}
