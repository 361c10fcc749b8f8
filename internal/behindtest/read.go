package behindtest

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

func stringsReader(s string) io.Reader { return strings.NewReader(s) }

// Body reads and closes a response's body.
func Body(t testing.TB, resp *http.Response) string {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Problem reads an RFC 9457 body and checks the status, the media type,
// the two safety headers and the type anchor; it returns the members.
func Problem(t testing.TB, resp *http.Response, status int, anchor string) map[string]any {
	t.Helper()
	body := Body(t, resp)
	if resp.StatusCode != status {
		t.Fatalf("status %d, want %d: %s", resp.StatusCode, status, body)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/problem+json" {
		t.Fatalf("Content-Type %q, want application/problem+json", ct)
	}
	if resp.Header.Get("Cache-Control") != "no-store" || resp.Header.Get("X-Content-Type-Options") != "nosniff" {
		t.Fatalf("missing safety headers: %v", resp.Header)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		t.Fatalf("body is not JSON: %v: %s", err, body)
	}
	if typ, _ := m["type"].(string); !strings.HasSuffix(typ, "#"+anchor) {
		t.Fatalf("type %q, want the anchor #%s", typ, anchor)
	}
	return m
}
