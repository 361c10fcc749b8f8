package main

import (
	"strings"
	"testing"
	"time"

	"go.uber.org/fx"

	"github.com/svckit/svc/devissuer"
)

// /admin/keys asks for a recent multi-factor login (RFC 9470): an admin
// token without one is refused 401 with the step-up challenge, one with
// acr "mfa" and a fresh auth_time is served.
func TestStepUpRoute(t *testing.T) {
	var iss *devissuer.Issuer
	base := startExample(t, fx.Populate(&iss))
	mint := func(extra map[string]any) string {
		tok, err := iss.Mint(devissuer.Token{Subject: "root", Scopes: []string{"read", "admin"}, Extra: extra})
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	plain := mint(nil)
	waitForKeys(t, base+"/me", plain)
	const challenge = `Bearer error="insufficient_user_authentication", error_description="A different authentication level is required", acr_values="mfa", max_age="300"`
	for _, c := range []struct {
		name   string
		token  string
		status int
	}{
		{"an admin token without a login context", plain, 401},
		{"a password login", mint(map[string]any{"acr": "pwd", "auth_time": time.Now().Unix()}), 401},
		{"an old multi-factor login", mint(map[string]any{"acr": "mfa", "auth_time": time.Now().Add(-time.Hour).Unix()}), 401},
		{"a recent multi-factor login", mint(map[string]any{"acr": "mfa", "auth_time": time.Now().Unix()}), 200},
	} {
		resp, body := call(t, "GET", base+"/admin/keys", c.token)
		if resp.StatusCode != c.status {
			t.Fatalf("%s: %d %s", c.name, resp.StatusCode, body)
		}
		if c.status == 401 && !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), challenge) {
			t.Fatalf("%s: %q", c.name, resp.Header.Get("WWW-Authenticate"))
		}
	}
}
