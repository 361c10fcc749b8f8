package main

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"go.uber.org/fx"

	"github.com/svckit/svc/devissuer"
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
			// The components behind the gate on Huma operations (authnhuma.Use).
			if resp, _ := call(t, "GET", base+"/api/reports", reader); resp.Header.Get("ETag") == "" {
				t.Fatalf("/api/reports without an ETag: %v", resp.Header)
			} else if again, _ := send(t, "GET", base+"/api/reports", reader, "", "If-None-Match", resp.Header.Get("ETag")); again.StatusCode != http.StatusNotModified {
				t.Fatalf("/api/reports with its ETag in If-None-Match: %d", again.StatusCode)
			}
			if resp, _ := call(t, "GET", base+"/api/greeting", ""); !strings.HasPrefix(resp.Header.Get("RateLimit-Policy"), `"`) {
				t.Fatalf("/api/greeting is not rate-limited: %v", resp.Header)
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
				Paths map[string]map[string]struct {
					Parameters []struct {
						Name string `json:"name"`
						In   string `json:"in"`
					} `json:"parameters"`
					Responses map[string]struct {
						Headers map[string]any `json:"headers"`
					} `json:"responses"`
				} `json:"paths"`
			}
			if resp.StatusCode != 200 || json.Unmarshal([]byte(body), &doc) != nil ||
				doc.Components.SecuritySchemes["openIdConnect"]["type"] != "openIdConnect" {
				t.Fatalf("/api/openapi.json: %d %s", resp.StatusCode, body[:min(len(body), 300)])
			}
			// Issue 24 item 16: the document lists what the markers add.
			reports := doc.Paths["/reports"]["get"]
			hasINM := false
			for _, p := range reports.Parameters {
				hasINM = hasINM || (p.In == "header" && p.Name == "If-None-Match")
			}
			if _, etag := reports.Responses["200"].Headers["ETag"]; !hasINM || !etag || reports.Responses["304"].Headers["ETag"] == nil {
				t.Fatalf("GET /api/reports in the document: %+v", reports)
			}
			greeting := doc.Paths["/greeting"]["get"]
			if greeting.Responses["200"].Headers["RateLimit"] == nil || greeting.Responses["429"].Headers["RateLimit-Policy"] == nil {
				t.Fatalf("GET /api/greeting in the document: %+v", greeting)
			}
			// HEAD on the Huma GET operation: judged and answered as GET.
			if resp, body := call(t, "HEAD", base+"/api/reports", ""); resp.StatusCode != 401 || body != "" {
				t.Fatalf("HEAD /api/reports without a token: %d %q", resp.StatusCode, body)
			}
			if resp, body := call(t, "HEAD", base+"/api/reports", reader); resp.StatusCode != 200 || body != "" || resp.Header.Get("ETag") == "" {
				t.Fatalf("HEAD /api/reports: %d %q %v", resp.StatusCode, body, resp.Header)
			}
		})
	}
}

// Regression: issue 14 item 18.
// Every documentation route of the API under /api answers 200 without a
// token, and a response's `$schema` link (asked for as localhost, where
// Huma wrote "https:///api/api/schemas/…") and Link header resolve to a
// schema that answers 200 without a token.
func TestHumaDocsArePublicAndLinksResolve(t *testing.T) {
	base := startExample(t)
	for _, route := range []string{"/api/openapi.json", "/api/openapi.yaml", "/api/openapi-3.0.json",
		"/api/openapi-3.0.yaml", "/api/docs", "/api/schemas/GreetingBody.json"} {
		if resp, body := call(t, "GET", base+route, ""); resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s without a token: %d %.200s", route, resp.StatusCode, body)
		}
	}
	port := base[strings.LastIndex(base, ":"):]
	for _, host := range []string{"", "localhost" + port} {
		req, _ := http.NewRequest("GET", base+"/api/greeting", nil)
		if host != "" {
			req.Host = host
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var out struct {
			Schema string `json:"$schema"`
		}
		err = json.NewDecoder(resp.Body).Decode(&out)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		u, err := url.Parse(out.Schema)
		wantHost := host
		if host == "" {
			wantHost = strings.TrimPrefix(base, "http://")
		}
		if err != nil || u.Scheme != "http" || u.Host != wantHost || u.Path != "/api/schemas/GreetingBody.json" {
			t.Fatalf("Host %q: $schema %q", host, out.Schema)
		}
		// GET the link where it points: the example listens on every host.
		if resp, body := call(t, "GET", base+u.Path, ""); resp.StatusCode != http.StatusOK || !strings.Contains(body, `"message"`) {
			t.Fatalf("GET %s: %d %.200s", out.Schema, resp.StatusCode, body)
		}
		if link := resp.Header.Get("Link"); link != `</api/schemas/GreetingBody.json>; rel="describedBy"` {
			t.Fatalf("Link %q", link)
		}
	}
}
