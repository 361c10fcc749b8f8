package main

import (
	"encoding/json"
	"strings"
	"testing"

	"go.uber.org/fx"

	"github.com/svckit/svc/internal/devissuer"
)

// The Huma API under /api, in both error formats.
func TestHumaAPI(t *testing.T) {
	for _, format := range []string{"rfc9457", "tmf"} {
		t.Run(format, func(t *testing.T) {
			t.Setenv("SVC_EXAMPLE_ERRORS", format)
			var iss *devissuer.Issuer
			base := startExample(t, fx.Populate(&iss))
			reader, _ := iss.Mint(devissuer.Token{Subject: "alice", Scopes: []string{"read"}})
			nobody, _ := iss.Mint(devissuer.Token{Subject: "bob"})
			waitForKeys(t, base+"/api/reports", reader)

			if _, body := call(t, "GET", base+"/api/greeting", ""); !strings.Contains(body, `"message":"hello, stranger"`) {
				t.Fatalf("/api/greeting: %s", body)
			}
			if _, body := call(t, "GET", base+"/api/greeting", reader); !strings.Contains(body, `"message":"hello, alice"`) {
				t.Fatalf("/api/greeting with a token: %s", body)
			}
			if resp, _ := call(t, "GET", base+"/api/reports", ""); resp.StatusCode != 401 {
				t.Fatalf("/api/reports without a token: %d", resp.StatusCode)
			}
			if resp, _ := call(t, "GET", base+"/api/reports", nobody); resp.StatusCode != 403 ||
				!strings.Contains(resp.Header.Get("WWW-Authenticate"), `scope="read"`) {
				t.Fatalf("/api/reports without the scope: %d", resp.StatusCode)
			}
			if _, body := call(t, "GET", base+"/api/reports", reader); !strings.Contains(body, `"owner":"alice"`) {
				t.Fatalf("/api/reports: %s", body)
			}
			resp, body := call(t, "GET", base+"/api/reports?year=1900", reader)
			wantAnchor := `validation-failed`
			if format == "tmf" {
				wantAnchor = `VALIDATION-FAILED`
			}
			if resp.StatusCode != 422 || !strings.Contains(body, wantAnchor) || strings.Contains(body, "1900") {
				t.Fatalf("/api/reports?year=1900: %d %s", resp.StatusCode, body)
			}
			resp, body = call(t, "GET", base+"/api/openapi.json", "")
			var doc struct {
				Components struct {
					SecuritySchemes map[string]map[string]any `json:"securitySchemes"`
				} `json:"components"`
			}
			if resp.StatusCode != 200 || json.Unmarshal([]byte(body), &doc) != nil ||
				doc.Components.SecuritySchemes["openIdConnect"]["type"] != "openIdConnect" {
				t.Fatalf("/api/openapi.json: %d %s", resp.StatusCode, body[:min(len(body), 300)])
			}
		})
	}
}
