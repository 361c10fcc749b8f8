package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"go.uber.org/fx"

	"github.com/svckit/svc/devissuer"
	"github.com/svckit/svc/fxsvc"
)

func call(t *testing.T, method, url, token string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// waitForKeys polls until the gate has loaded the issuer's keys: they load
// in the background when the app opens.
func waitForKeys(t *testing.T, url, token string) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if resp, _ := call(t, "GET", url, token); resp.StatusCode != http.StatusServiceUnavailable {
			return
		}
	}
	t.Fatal("keys never loaded")
}

func TestTheTourOfTheREADME(t *testing.T) {
	var iss *devissuer.Issuer
	base := startExample(t, fx.Populate(&iss))
	reader, _ := iss.Mint(devissuer.Token{Subject: "alice", Scopes: []string{"read"}})
	admin, _ := iss.Mint(devissuer.Token{Subject: "root", Scopes: []string{"read", "admin"}})
	waitForKeys(t, base+"/me", reader)

	resp, _ := call(t, "GET", base+"/me", "")
	if resp.StatusCode != 401 || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer resource_metadata=") {
		t.Fatalf("/me without a token: %d %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
	if _, body := call(t, "GET", base+"/hello", ""); body != "hello, stranger\n" {
		t.Fatalf("/hello: %q", body)
	}
	if _, body := call(t, "GET", base+"/hello", reader); body != "hello, alice\n" {
		t.Fatalf("/hello with a token: %q", body)
	}
	resp, body := call(t, "GET", base+"/me", reader)
	var me map[string]any
	_ = json.Unmarshal([]byte(body), &me)
	if resp.StatusCode != 200 || me["subject"] != "alice" || me["authenticated"] != true {
		t.Fatalf("/me: %d %s", resp.StatusCode, body)
	}
	resp, _ = call(t, "GET", base+"/admin", reader)
	if resp.StatusCode != 403 || !strings.Contains(resp.Header.Get("WWW-Authenticate"), `scope="admin"`) {
		t.Fatalf("/admin without the scope: %d", resp.StatusCode)
	}
	if resp, _ := call(t, "GET", base+"/admin", admin); resp.StatusCode != 200 {
		t.Fatalf("/admin with the scope: %d", resp.StatusCode)
	}
	if resp, _ := call(t, "GET", base+"/healthz", "garbage"); resp.StatusCode != 200 {
		t.Fatalf("/healthz: %d", resp.StatusCode)
	}
	resp, body = call(t, "GET", base+"/.well-known/oauth-protected-resource", "")
	if resp.StatusCode != 200 || !strings.Contains(body, `"resource":"https://api.svc.example"`) || !strings.Contains(body, iss.URL) {
		t.Fatalf("metadata: %d %s", resp.StatusCode, body)
	}

	// The outbound call: the service's own client-credentials token reaches
	// the downstream route, which the caller's token alone may not.
	if resp, _ := call(t, "GET", base+"/invoices", reader); resp.StatusCode != 403 {
		t.Fatalf("/invoices with the reader's token: %d", resp.StatusCode)
	}
	resp, body = call(t, "GET", base+"/billing", reader)
	if resp.StatusCode != 200 || !strings.Contains(body, `"caller":"example-client"`) {
		t.Fatalf("/billing: %d %s", resp.StatusCode, body)
	}
	before := iss.TokenRequests()
	call(t, "GET", base+"/billing", reader)
	if iss.TokenRequests() != before {
		t.Fatal("the second outbound call fetched a new token; it should be cached")
	}

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ws := "ws" + strings.TrimPrefix(base, "http") + "/ws"
	if _, resp, err := websocket.Dial(ctx, ws, nil); err == nil || resp.StatusCode != 401 {
		t.Fatalf("websocket without a token: %v", err)
	}
	c, _, err := websocket.Dial(ctx, ws, &websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"Bearer " + reader}}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	_ = c.Write(ctx, websocket.MessageText, []byte("hi"))
	if _, msg, err := c.Read(ctx); err != nil || string(msg) != "alice: hi" {
		t.Fatalf("echo %q %v", msg, err)
	}
}

func TestCheckCommand(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := fxsvc.Run([]string{"check"}, &out, &errOut, options()...); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	for _, line := range []string{
		"GET  /admin                                 authenticated  admin",
		"GET  /hello                                 anonymous",
		"GET  /healthz                               excluded",
		"GET  /.well-known/oauth-protected-resource  excluded",
		// Huma operations list the markers authnhuma.Use put on them.
		"GET  /api/greeting  anonymous  ratelimit=5/s burst 10",
		"GET  /api/reports  authenticated  read  conditional=etags",
	} {
		// Columns widen with the longest method and notes: compare words.
		if !strings.Contains(strings.Join(strings.Fields(out.String()), " "), strings.Join(strings.Fields(line), " ")) {
			t.Errorf("check output lacks %q:\n%s", line, out.String())
		}
	}
}
