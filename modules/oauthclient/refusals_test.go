package oauthclient_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// Issue 22 item 6: tokens an API refused are counted by pattern and error
// code, and the code's values are bounded whatever the API writes.
func TestRefusedTokensAreCountedWithBoundedCodes(t *testing.T) {
	reader, _ := installTelemetry(t)
	answers := []struct {
		status    int
		challenge string
	}{
		{401, `Bearer error="invalid_token"`},
		{401, `Bearer error="invalid_token"`}, // the repeat with the fresh token, refused again
		{403, `Bearer error="insufficient_scope", scope="admin"`},
		{401, `Bearer error="made_up_by_the_api_12345"`},
		{401, `Bearer realm="api"`},
		{403, ``}, // the API's own business: not counted
		{200, ``}, // not counted
		{404, ``}, // not counted
	}
	i := 0
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a := answers[i]
		i++
		if a.challenge != "" {
			w.Header().Set("WWW-Authenticate", a.challenge)
		}
		w.WriteHeader(a.status)
	}))
	t.Cleanup(api.Close)
	s := newTokenServer(t)
	p := newCC(t, newClient(t, s, newClock()), "billing")
	for i < len(answers) {
		req, _ := http.NewRequest(http.MethodGet, api.URL, nil)
		resp, err := p.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}

	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != "svc.oauthclient.refusals" {
				continue
			}
			for _, dp := range m.Data.(metricdata.Sum[int64]).DataPoints {
				pattern, _ := dp.Attributes.Value("svc.oauthclient.pattern")
				code, _ := dp.Attributes.Value("error.type")
				got[pattern.AsString()+" "+code.AsString()] += dp.Value
			}
		}
	}
	want := map[string]int64{
		"billing invalid_token":      2,
		"billing insufficient_scope": 1,
		"billing other":              1,
		"billing none":               1,
	}
	if len(got) != len(want) {
		t.Fatalf("refusals %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("refusals %v, want %v", got, want)
		}
	}
}
