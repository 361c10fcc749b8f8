package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/svckit/svc/modules/authn/authntest"
	"github.com/svckit/svc/modules/authn/bearer"
)

// lockedBuffer is written by run's goroutine and read by the test.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// The command prints the settings to paste and a token per subject; the
// settings point a verifier at it, the token verifies with the scopes
// asked, and /mint signs one for another subject.
func TestPrintsSettingsAndTokensThatWork(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var out, errOut lockedBuffer
	dir := t.TempDir()
	done := make(chan int)
	go func() {
		done <- run(ctx, []string{"-addr", "127.0.0.1:0", "-audience", "orders", "-scopes", "read write", "-subjects", "alice,bob-2", "-cert-dir", dir, "-tenants", "contoso"}, &out, &errOut)
	}()
	defer func() {
		cancel()
		if code := <-done; code != 0 {
			t.Errorf("exit %d: %s", code, errOut.String())
		}
	}()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(out.String(), "# more tokens") {
		if time.Now().After(deadline) {
			t.Fatalf("nothing printed: %q %q", out.String(), errOut.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	env := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(out.String()))
	sc.Buffer(make([]byte, 64<<10), 64<<10)
	for sc.Scan() {
		if k, v, ok := strings.Cut(strings.TrimPrefix(sc.Text(), "export "), "="); ok && strings.HasPrefix(sc.Text(), "export ") {
			env[k] = v
		}
	}
	for _, k := range []string{"SVC_AUTHN_ISSUER", "SVC_AUTHN_AUDIENCE", "SVC_OAUTHCLIENT_ISSUER", "SVC_OAUTHCLIENT_CLIENT_ID", "SVC_OAUTHCLIENT_CLIENT_SECRET", "TOKEN_ALICE", "TOKEN_BOB_2", "OPAQUE_TOKEN_ALICE", "MFA_TOKEN_BOB_2", "SVC_OAUTHCLIENT_TLS_CERT_FILE", "SVC_OAUTHCLIENT_TLS_KEY_FILE", "CERT_BOUND_TOKEN"} {
		if env[k] == "" {
			t.Fatalf("%s not printed:\n%s", k, out.String())
		}
	}
	if _, err := os.Stat(env["SVC_OAUTHCLIENT_TLS_CERT_FILE"]); err != nil || !strings.Contains(out.String(), "/contoso/v2.0") {
		t.Fatalf("certificates or tenants not printed: %v\n%s", err, out.String())
	}
	for _, grant := range []string{"grant_type=client_credentials", "grant-type:token-exchange", "grant_type=refresh_token", "/authorize?response_type=code", "/introspect", "/revoke", "-X POST"} {
		if !strings.Contains(out.String(), grant) {
			t.Errorf("no curl line with %s:\n%s", grant, out.String())
		}
	}
	if !regexp.MustCompile(`^http://127\.0\.0\.1:\d+$`).MatchString(env["SVC_AUTHN_ISSUER"]) || env["SVC_AUTHN_AUDIENCE"] != "orders" {
		t.Fatalf("settings %v", env)
	}
	v := bearer.New(env["SVC_AUTHN_ISSUER"], env["SVC_AUTHN_AUDIENCE"])
	if err := v.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer v.Close(context.Background())
	if err := authntest.WaitReady(v, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	p, err := v.Verify(context.Background(), env["TOKEN_ALICE"])
	if err != nil || p.Subject != "alice" || !p.Scopes.Has("read") || !p.Scopes.Has("write") {
		t.Fatalf("the printed token: %+v %v", p, err)
	}
	if p, err := v.Verify(context.Background(), env["MFA_TOKEN_BOB_2"]); err != nil || p.Subject != "bob-2" || string(p.Claims.Raw["acr"]) != `"mfa"` {
		t.Fatalf("the printed step-up token: %+v %v", p, err)
	}
	resp, err := http.Get(env["SVC_AUTHN_ISSUER"] + "/mint?sub=carol&scope=admin")
	if err != nil {
		t.Fatal(err)
	}
	var body struct {
		AccessToken string `json:"access_token"`
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err := json.Unmarshal(b, &body); err != nil || resp.StatusCode != 200 {
		t.Fatalf("/mint: %d %s", resp.StatusCode, b)
	}
	if p, err := v.Verify(context.Background(), body.AccessToken); err != nil || p.Subject != "carol" || !p.Scopes.Has("admin") {
		t.Fatalf("the minted token: %+v %v", p, err)
	}
}

// Bad flags and addresses say what is wrong, and nothing starts.
func TestRefusesBadSettings(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-addr", "127.0.0.1"}, 1, "is not host:port"},
		{[]string{"-addr", "0.0.0.0:9000"}, 1, "not on loopback"},
		{[]string{"-addr", "10.1.2.3:9000"}, 1, "-dev-any-address allows it"},
		{[]string{"-addr", "127.0.0.1:0", "-issuers", "/partner"}, 1, "is not path=audience"},
		{[]string{"-addr", "127.0.0.1:0", "-tenants", "a/b"}, 1, "-tenants"},
		{[]string{"-ttl", "-1m"}, 2, "-ttl"},
		{[]string{"stray"}, 2, `unexpected argument "stray"`},
		{[]string{"-nope"}, 2, "flag provided but not defined"},
	} {
		var out, errOut lockedBuffer
		if code := run(context.Background(), c.args, &out, &errOut); code != c.code || !strings.Contains(errOut.String(), c.want) {
			t.Errorf("%v: exit %d, %q; want %d and %q", c.args, code, errOut.String(), c.code, c.want)
		}
	}
}
