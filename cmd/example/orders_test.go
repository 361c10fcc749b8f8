package main

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"go.uber.org/fx"

	"github.com/svckit/svc/devissuer"
)

func send(t *testing.T, method, url, token, body string, headers ...string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// docs/components.md's curl lines for the components behind the gate.
func TestTheOrdersTour(t *testing.T) {
	var iss *devissuer.Issuer
	base := startExample(t, fx.Populate(&iss))
	reader, _ := iss.Mint(devissuer.Token{Subject: "alice", Scopes: []string{"read"}})
	waitForKeys(t, base+"/me", reader)

	resp, created := send(t, "POST", base+"/orders", reader, `{"item":"pen"}`, "Idempotency-Key", "order-1")
	if resp.StatusCode != 201 || resp.Header.Get("Location") != "/orders/1" || resp.Header.Get("RateLimit") == "" {
		t.Fatalf("create: %d %v %s", resp.StatusCode, resp.Header, created)
	}
	resp, replay := send(t, "POST", base+"/orders", reader, `{"item":"pen"}`, "Idempotency-Key", "order-1")
	if resp.StatusCode != 201 || replay != created || resp.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("replay: %d %v %s", resp.StatusCode, resp.Header, replay)
	}
	if resp, _ := send(t, "POST", base+"/orders", reader, `{"item":"ink"}`, "Idempotency-Key", "order-1"); resp.StatusCode != 422 {
		t.Fatalf("reused key: %d", resp.StatusCode)
	}
	resp, _ = send(t, "GET", base+"/orders/1", reader, "")
	etag := resp.Header.Get("ETag")
	if resp.StatusCode != 200 || etag == "" {
		t.Fatalf("show: %d %v", resp.StatusCode, resp.Header)
	}
	if resp, _ := send(t, "GET", base+"/orders/1", reader, "", "If-None-Match", etag); resp.StatusCode != 304 {
		t.Fatalf("revalidate: %d", resp.StatusCode)
	}
	// Issue 24 item 16: HEAD is GET without the body, behind the same guard.
	if resp, body := send(t, "HEAD", base+"/orders/1", reader, ""); resp.StatusCode != 200 || body != "" || resp.Header.Get("ETag") != etag {
		t.Fatalf("HEAD: %d %q %v", resp.StatusCode, body, resp.Header)
	}
	if resp, _ := send(t, "HEAD", base+"/orders/1", reader, "", "If-None-Match", etag); resp.StatusCode != 304 {
		t.Fatalf("HEAD revalidate: %d", resp.StatusCode)
	}
	if resp, _ := send(t, "HEAD", base+"/orders/1", "", ""); resp.StatusCode != 401 {
		t.Fatalf("HEAD without a token: %d", resp.StatusCode)
	}
	if resp, _ := send(t, "PUT", base+"/orders/1", reader, `{"status":"paid"}`); resp.StatusCode != 428 {
		t.Fatalf("put without If-Match: %d", resp.StatusCode)
	}
	if resp, _ := send(t, "PUT", base+"/orders/1", reader, `{"status":"paid"}`, "If-Match", etag); resp.StatusCode != 200 {
		t.Fatalf("put: %d", resp.StatusCode)
	}
	if resp, _ := send(t, "PUT", base+"/orders/1", reader, `{"status":"void"}`, "If-Match", etag); resp.StatusCode != 412 {
		t.Fatalf("stale put: %d", resp.StatusCode)
	}
	_, first := send(t, "GET", base+"/catalog", "", "")
	resp, second := send(t, "GET", base+"/catalog", "", "")
	if second != first || resp.Header.Get("Age") == "" {
		t.Fatalf("catalog not cached: %v", resp.Header)
	}
}
