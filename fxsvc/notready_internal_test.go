package fxsvc

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	svcerrors "github.com/svckit/svc/modules/errors"
)

func TestNotReadyNamesTheFailingChecksInBothFormats(t *testing.T) {
	err := fmt.Errorf("probe: %w", &notReady{checks: []string{"authn", "redis"}})
	cases := []struct {
		name      string
		res       *svcerrors.Responses
		mediaType string
	}{
		{"rfc9457", svcerrors.New(), "application/problem+json"},
		{"tmf", svcerrors.NewTMF("SVC", svcerrors.KindDocs), "application/json"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			c.res.Render(err, "/readyz").Write(rec)
			if rec.Code != 503 {
				t.Fatalf("status %d", rec.Code)
			}
			if got := rec.Header().Get("Content-Type"); got != c.mediaType {
				t.Errorf("Content-Type %q", got)
			}
			if rec.Header().Get("Cache-Control") != "no-store" {
				t.Errorf("Cache-Control %q", rec.Header().Get("Cache-Control"))
			}
			var body map[string]any
			if e := json.Unmarshal(rec.Body.Bytes(), &body); e != nil {
				t.Fatalf("not JSON: %s", rec.Body)
			}
			text := rec.Body.String()
			if !strings.Contains(text, "Not ready: authn, redis.") {
				t.Errorf("the detail does not name the checks: %s", text)
			}
			if c.name == "rfc9457" {
				if !strings.HasSuffix(body["type"].(string), "#not-ready") {
					t.Errorf("type %v", body["type"])
				}
				checks, _ := body["checks"].([]any)
				if len(checks) != 2 || checks[0] != "authn" || checks[1] != "redis" {
					t.Errorf("checks member %v", body["checks"])
				}
			} else if body["code"] != "SVC-NOT-READY" {
				t.Errorf("code %v", body["code"])
			}
		})
	}
}

func TestNotReadyWithoutChecksKeepsTheKindsDetail(t *testing.T) {
	d, ok := svcerrors.Describe(&notReady{})
	if !ok || d.Status != 503 || d.Anchor != "not-ready" {
		t.Fatalf("%v %+v", ok, d)
	}
	if d.Detail != "" || len(d.Extensions) != 0 {
		t.Fatalf("%+v", d)
	}
	var nr *notReady
	if !errors.As(fmt.Errorf("x: %w", &notReady{checks: []string{"a"}}), &nr) || nr.checks[0] != "a" {
		t.Fatal("not found through wrapping")
	}
}
