package main

import (
	"net/http"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"go.uber.org/fx"

	"github.com/svckit/svc/devissuer"
)

func TestMetricsScrapeShowsTheAuthenticationMetrics(t *testing.T) {
	var iss *devissuer.Issuer
	base := startExample(t, fx.Populate(&iss))
	reader, _ := iss.Mint(devissuer.Token{Subject: "alice", Scopes: []string{"read"}})
	waitForKeys(t, base+"/me", reader)
	call(t, "GET", base+"/me", reader)
	call(t, "GET", base+"/me", "")
	call(t, "GET", base+"/admin", reader)

	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("/metrics: %d", resp.StatusCode)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"svc_authentication_attempts_total", "svc_authorization_refusals_total"} {
		if families[name] == nil {
			names := []string{}
			for n := range families {
				names = append(names, n)
			}
			t.Fatalf("%s missing from the scrape; have %v", name, names)
		}
	}
	var refused float64
	for _, m := range families["svc_authentication_attempts_total"].GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == "svc_outcome" && l.GetValue() == "refused" {
				refused += m.GetCounter().GetValue()
			}
		}
	}
	if refused < 1 {
		t.Fatalf("no refused attempt counted")
	}
}
