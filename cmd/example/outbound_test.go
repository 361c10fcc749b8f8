package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"go.uber.org/fx"
	"go.uber.org/fx/fxtest"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/svckit/svc/devissuer"
	"github.com/svckit/svc/fxsvc"
)

// realIssuer starts an issuer the example is told to trust through
// SVC_AUTHN_ISSUER, as a deployment would.
func realIssuer(t *testing.T) *devissuer.Issuer {
	t.Helper()
	iss, err := devissuer.Start(devissuer.Options{Audience: "billing-svc", ClientID: "deployed-client", ClientSecret: "deployed-s3cret"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { iss.Close() })
	t.Setenv("SVC_AUTHN_ISSUER", iss.URL)
	t.Setenv("SVC_AUTHN_AUDIENCE", iss.Audience)
	return iss
}

// buildErr builds the example without starting it and returns its error.
func buildErr(t *testing.T) error {
	t.Helper()
	t.Setenv("SVC_HTTP_ADDR", "127.0.0.1:0")
	app := fx.New(append(options(), fx.Decorate(func() *zap.Logger { return zap.NewNop() }), fx.NopLogger)...)
	return app.Err()
}

// Regression: issue 14 item 19.
// With SVC_AUTHN_ISSUER set the example ignored every SVC_OAUTHCLIENT_*
// variable; now they configure the outbound client.
func TestOutboundEnvIsHonouredWithAnIssuer(t *testing.T) {
	iss := realIssuer(t)
	t.Setenv("SVC_OAUTHCLIENT_ISSUER", iss.URL)
	t.Setenv("SVC_OAUTHCLIENT_CLIENT_ID", iss.ClientID)
	t.Setenv("SVC_OAUTHCLIENT_CLIENT_SECRET", iss.ClientSecret)
	base := startExample(t)
	reader, _ := iss.Mint(devissuer.Token{Subject: "alice", Scopes: []string{"read"}})
	waitForKeys(t, base+"/me", reader)
	resp, body := call(t, "GET", base+"/billing", reader)
	if resp.StatusCode != 200 || !strings.Contains(body, `"caller":"deployed-client"`) {
		t.Fatalf("/billing: %d %s", resp.StatusCode, body)
	}
}

// Regression: issue 14 item 19.
// A broken SVC_OAUTHCLIENT_* setting fails start, naming the variable,
// with a configured issuer as with the development one; and the
// development issuer's client no longer silently replaces a client the
// environment names.
func TestOutboundEnvIsCheckedAndWins(t *testing.T) {
	cases := []struct {
		name    string
		issuer  bool // SVC_AUTHN_ISSUER set
		env     map[string]string
		setting string // the variable the error must name
	}{
		{"issuer: broken outbound issuer", true, map[string]string{
			"SVC_OAUTHCLIENT_ISSUER": "ftp://as.example", "SVC_OAUTHCLIENT_CLIENT_ID": "id", "SVC_OAUTHCLIENT_CLIENT_SECRET": "topsecret-env"}, "SVC_OAUTHCLIENT_ISSUER"},
		{"issuer: a secret without a client", true, map[string]string{"SVC_OAUTHCLIENT_CLIENT_SECRET": "topsecret-env"}, "SVC_OAUTHCLIENT_ISSUER"},
		{"issuer: bad auth method", true, map[string]string{
			"SVC_OAUTHCLIENT_TOKEN_ENDPOINT": "https://as.example/token", "SVC_OAUTHCLIENT_CLIENT_ID": "id",
			"SVC_OAUTHCLIENT_CLIENT_SECRET": "topsecret-env", "SVC_OAUTHCLIENT_AUTH_METHOD": "jwt"}, "SVC_OAUTHCLIENT_AUTH_METHOD"},
		{"dev issuer: the environment's client is not replaced", false, map[string]string{"SVC_OAUTHCLIENT_CLIENT_ID": "someone-else"}, "SVC_OAUTHCLIENT_ISSUER"},
		{"dev issuer: a bad timeout", false, map[string]string{"SVC_OAUTHCLIENT_TIMEOUT": "soon"}, "SVC_OAUTHCLIENT_TIMEOUT"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.issuer {
				realIssuer(t)
			}
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			err := buildErr(t)
			if err == nil || !strings.Contains(err.Error(), tc.setting) {
				t.Fatalf("err = %v, want one naming %s", err, tc.setting)
			}
			if strings.Contains(err.Error(), "topsecret-env") {
				t.Fatalf("the error repeats the secret: %v", err)
			}
		})
	}
}

// Regression: issue 25 item 6.
// Under the development issuer, a missing assertion file, a missing secret
// file or a blank client ID failed with "SVC_OAUTHCLIENT_ISSUER: set the
// issuer", hiding the fault: each names its own variable and what is
// wrong with it.
func TestDevIssuerOutboundErrorsNameTheirOwnVariable(t *testing.T) {
	missing := t.TempDir() + "/missing"
	cases := []struct {
		name, variable, value, want string
	}{
		{"missing assertion file", "SVC_OAUTHCLIENT_ASSERTION_FILE", missing, "SVC_OAUTHCLIENT_ASSERTION_FILE: cannot read the assertion file"},
		{"missing secret file", "SVC_OAUTHCLIENT_CLIENT_SECRET_FILE", missing, "SVC_OAUTHCLIENT_CLIENT_SECRET_FILE: cannot read the secret file"},
		{"blank client id", "SVC_OAUTHCLIENT_CLIENT_ID", "   ", "SVC_OAUTHCLIENT_CLIENT_ID: is blank"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("SVC_AUTHN_ISSUER", "")
			t.Setenv("SVC_AUTHN_AUDIENCE", "")
			t.Setenv(tc.variable, tc.value)
			err := buildErr(t)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one saying %q", err, tc.want)
			}
		})
	}
}

// Regression: issue 14 item 24.
// /billing without outbound configuration answered 503 "Retry later", but
// retrying cannot help: it is a logged 500 without Retry-After.
func TestBillingWithoutOutboundIsA500(t *testing.T) {
	iss := realIssuer(t)
	t.Setenv("SVC_HTTP_ADDR", "127.0.0.1:0")
	core, logs := observer.New(zap.ErrorLevel)
	var srv *fxsvc.Server
	app := fxtest.New(t, append(options(), fx.Decorate(func() *zap.Logger { return zap.New(core) }), fx.Populate(&srv))...)
	app.RequireStart()
	t.Cleanup(app.RequireStop)
	base := "http://" + srv.Addr()
	reader, _ := iss.Mint(devissuer.Token{Subject: "alice", Scopes: []string{"read"}})
	waitForKeys(t, base+"/me", reader)
	resp, body := call(t, "GET", base+"/billing", reader)
	if resp.StatusCode != 500 || resp.Header.Get("Retry-After") != "" || strings.Contains(body, "Retry") {
		t.Fatalf("/billing: %d Retry-After %q %s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	var p map[string]any
	if err := json.Unmarshal([]byte(body), &p); err != nil || p["type"] != "about:blank" || p["status"] != float64(500) {
		t.Fatalf("body %s: %v", body, err)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/problem+json" || strings.Contains(body, "SVC_OAUTHCLIENT") {
		t.Fatalf("Content-Type %q, body %s", ct, body)
	}
	// The cause, with what to set, is in the log.
	logged := false
	for _, e := range logs.All() {
		if err, ok := e.ContextMap()["error"].(string); ok && strings.Contains(err, "SVC_OAUTHCLIENT_CLIENT_ID") {
			logged = true
		}
	}
	if !logged {
		t.Fatalf("the cause was not logged: %v", logs.All())
	}
}

// Regression: issue 14 item 20.
// An outbound token failure answered 500 (or a plain 502); it now answers
// its kind: 503 with Retry-After when the server asked to wait, 502 when it
// refused the client.
func TestBillingAnswersTokenFailuresByKind(t *testing.T) {
	cases := []struct {
		name       string
		status     int
		header     map[string]string
		body       string
		want       int
		anchor     string
		retryAfter bool
	}{
		{"server asks to wait", 503, map[string]string{"Retry-After": "60"}, `{"error":"temporarily_unavailable"}`, 503, "upstream-token-unavailable", true},
		{"client refused", 401, nil, `{"error":"invalid_client","error_description":"bad secret topsecret-env"}`, 502, "upstream-token-refused", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			as := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				for k, v := range tc.header {
					w.Header().Set(k, v)
				}
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(tc.status)
				_, _ = w.Write([]byte(tc.body))
			}))
			t.Cleanup(as.Close)
			t.Setenv("SVC_OAUTHCLIENT_TOKEN_ENDPOINT", as.URL+"/token")
			t.Setenv("SVC_OAUTHCLIENT_CLIENT_ID", "svc")
			t.Setenv("SVC_OAUTHCLIENT_CLIENT_SECRET", "topsecret-env")
			var iss *devissuer.Issuer
			base := startExample(t, fx.Populate(&iss))
			reader, _ := iss.Mint(devissuer.Token{Subject: "alice", Scopes: []string{"read"}})
			waitForKeys(t, base+"/me", reader)
			resp, body := call(t, "GET", base+"/billing", reader)
			var p map[string]any
			_ = json.Unmarshal([]byte(body), &p)
			if typ, _ := p["type"].(string); resp.StatusCode != tc.want || !strings.HasSuffix(typ, "#"+tc.anchor) {
				t.Fatalf("/billing: %d %s", resp.StatusCode, body)
			}
			ra := resp.Header.Get("Retry-After")
			if n, err := strconv.Atoi(ra); tc.retryAfter && (err != nil || n < 30 || n > 60) || !tc.retryAfter && ra != "" {
				t.Fatalf("Retry-After %q", ra)
			}
			for _, word := range []string{"topsecret", "invalid_client", "temporarily_unavailable"} {
				if strings.Contains(body, word) {
					t.Fatalf("body repeats %q: %s", word, body)
				}
			}
		})
	}
}
