package fxsvc_test

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"go.uber.org/fx"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/svckit/svc/devissuer"
	"github.com/svckit/svc/fxsvc"
	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/bearer"
)

// buildGate builds only the gate of an app, so that its construction error
// is what the test sees.
func buildGate(opts ...fx.Option) error {
	return fx.New(append([]fx.Option{fx.NopLogger, fx.Invoke(func(*authn.Gate) {})}, opts...)...).Err()
}

// Regression: issue 14 item 19.
func TestAuthnFromEnvNamesTheVariableAtFault(t *testing.T) {
	cases := []struct {
		name, issuer, audience string
		opts                   []bearer.VerifierOption
		want                   []string // all in the error
		setting                string   // the *bearer.ConfigError's Setting
	}{
		{"plain http issuer", "http://idp.example", "api", nil,
			[]string{`SVC_AUTHN_ISSUER="http://idp.example"`, "must be https"}, "issuer"},
		{"issuer with a query", "https://idp.example/?tenant=1", "api", nil,
			[]string{"SVC_AUTHN_ISSUER=", "has a query"}, "issuer"},
		{"issuer not a URL", "idp.example", "api", nil,
			[]string{`SVC_AUTHN_ISSUER="idp.example"`, "has no scheme: write it as https://"}, "issuer"},
		// Regression: issue 24 item 2: a malformed issuer named what is
		// wrong with it ("is not a URL" for a trailing colon).
		{"issuer with a trailing colon", "https://idp.example:", "api", nil,
			[]string{"SVC_AUTHN_ISSUER=", "ends its host with a colon and no port"}, "issuer"},
		{"issuer as a host and port", "127.0.0.1:9000", "api", nil,
			[]string{"SVC_AUTHN_ISSUER=", "has no scheme"}, "issuer"},
		{"issuer without //", "https:idp.example", "api", nil,
			[]string{"SVC_AUTHN_ISSUER=", "has no // after https:"}, "issuer"},
		{"issuer with an empty host", "https:///realms/x", "api", nil,
			[]string{"SVC_AUTHN_ISSUER=", "has an empty host"}, "issuer"},
		{"issuer with a bad port", "https://idp.example:8443x", "api", nil,
			[]string{"SVC_AUTHN_ISSUER=", "has a port that is not a number"}, "issuer"},
		{"issuer with a port out of range", "https://idp.example:70000", "api", nil,
			[]string{"SVC_AUTHN_ISSUER=", "has a port outside 1 to 65535"}, "issuer"},
		{"issuer with user information", "https://user:s3cret@idp.example", "api", nil,
			[]string{`SVC_AUTHN_ISSUER="https://***@idp.example"`, "carries user information"}, "issuer"},
		{"issuer with a fragment", "https://idp.example/#x", "api", nil,
			[]string{"SVC_AUTHN_ISSUER=", "has a fragment"}, "issuer"},
		{"issuer with another scheme", "ftp://idp.example", "api", nil,
			[]string{"SVC_AUTHN_ISSUER=", "must be https, not another scheme"}, "issuer"},
		{"audience unset", "https://idp.example", "", nil,
			[]string{`SVC_AUTHN_AUDIENCE=""`, "is empty"}, "audience"},
		{"audience of spaces", "https://idp.example", "   ", nil,
			[]string{`SVC_AUTHN_AUDIENCE="   "`, "is empty"}, "audience"},
		{"audience with a trailing space", "https://idp.example", "api ", nil,
			[]string{`SVC_AUTHN_AUDIENCE="api "`, "spaces"}, "audience"},
		{"invalid verifier option", "https://idp.example", "api", []bearer.VerifierOption{bearer.Leeway(time.Hour)},
			[]string{"fxsvc.AuthnVerifierOptions", "Leeway"}, "Leeway"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("SVC_AUTHN_ISSUER", c.issuer)
			t.Setenv("SVC_AUTHN_AUDIENCE", c.audience)
			opts := []fx.Option{fxsvc.Authn(nil)}
			if c.opts != nil {
				opts = append(opts, fxsvc.AuthnVerifierOptions(c.opts...))
			}
			err := buildGate(opts...)
			if err == nil {
				t.Fatal("the app was built")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q: %v", w, err)
				}
			}
			var ce *bearer.ConfigError
			if !errors.As(err, &ce) || ce.Setting != c.setting {
				t.Errorf("want a *bearer.ConfigError for %s, got %v", c.setting, err)
			}
		})
	}
}

// Regression: issue 14 item 10.
func TestAuthnVerifierOptionsRefusedWhereTheyWouldBeIgnoredOrAmbiguous(t *testing.T) {
	t.Setenv("SVC_AUTHN_ISSUER", "https://idp.example")
	t.Setenv("SVC_AUTHN_AUDIENCE", "api")
	cases := []struct {
		name string
		opts []fx.Option
		want string
	}{
		{"beside the app's own verifier",
			[]fx.Option{fxsvc.Authn(tokens{}), fxsvc.AuthnVerifierOptions(bearer.TokenTypes("at+jwt"))},
			"give these options to bearer.Discover"},
		{"given twice",
			[]fx.Option{fxsvc.Authn(nil), fxsvc.AuthnVerifierOptions(bearer.Leeway(0)), fxsvc.AuthnVerifierOptions(bearer.Leeway(time.Second))},
			"fxsvc.AuthnVerifierOptions is given 2 times"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := buildGate(c.opts...); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v", err)
			}
		})
	}
	if err := buildGate(fxsvc.Authn(nil), fxsvc.AuthnVerifierOptions(bearer.Leeway(0))); err != nil {
		t.Fatalf("once: %v", err)
	}
}

// Regression: issue 14 item 10.
func TestAuthnVerifierOptionsReachTheVerifierBuiltFromEnv(t *testing.T) {
	iss, err := devissuer.Start(devissuer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = iss.Close() })
	tok, err := iss.Mint(devissuer.Token{Subject: "alice"}) // typ at+jwt
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("SVC_AUTHN_ISSUER", iss.URL)
	t.Setenv("SVC_AUTHN_AUDIENCE", iss.Audience)
	cases := []struct {
		name   string
		opts   []fx.Option
		status int
		body   string
	}{
		{"no options", nil, http.StatusOK, "me"},
		{"matching typ", []fx.Option{fxsvc.AuthnVerifierOptions(bearer.TokenTypes("at+jwt"))}, http.StatusOK, "me"},
		{"other typ", []fx.Option{fxsvc.AuthnVerifierOptions(bearer.TokenTypes("id+jwt"))}, http.StatusUnauthorized, "token"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := chi.NewRouter()
			r.Get("/me", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "me") })
			opts := append([]fx.Option{fx.NopLogger, fxsvc.Errors(), fxsvc.Authn(nil), fx.Supply(r),
				fxsvc.Serve(fxsvc.Addr("127.0.0.1:0"))}, c.opts...)
			app, srv := startApp(t, opts...)
			defer app.RequireStop()
			status, body, hdr := getUntilKeysLoad(t, "http://"+srv.Addr()+"/me", tok)
			if status != c.status || !strings.Contains(body, c.body) {
				t.Fatalf("got %d %s", status, body)
			}
			if c.status == http.StatusUnauthorized && !strings.Contains(hdr.Get("WWW-Authenticate"), `error="invalid_token"`) {
				t.Errorf("challenge: %q", hdr.Get("WWW-Authenticate"))
			}
		})
	}
}

// getUntilKeysLoad GETs url with token until the answer is no longer the
// 503 of keys still loading in the background.
func getUntilKeysLoad(t *testing.T, url, token string) (int, string, http.Header) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		req, _ := http.NewRequest(http.MethodGet, url, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusServiceUnavailable || time.Now().After(deadline) {
			return resp.StatusCode, string(body), resp.Header
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Regression: issue 14 item 10.
func TestAuthnLogsIdentityProviderFailuresToTheAppsLogger(t *testing.T) {
	// A wrong issuer: nothing is served at its discovery URLs.
	idp := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(idp.Close)
	issuer := idp.URL + "/wrong"
	cases := []struct {
		name     string
		verifier func() bearer.Verifier
	}{
		{"built from the environment", func() bearer.Verifier { return nil }},
		{"given without a logger", func() bearer.Verifier { return bearer.New(issuer, "api") }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("SVC_AUTHN_ISSUER", issuer)
			t.Setenv("SVC_AUTHN_AUDIENCE", "api")
			core, logs := observer.New(zap.InfoLevel)
			app, _ := startApp(t, fx.NopLogger, fx.Supply(zap.New(core)), fxsvc.Errors(), fxsvc.Authn(c.verifier()),
				fx.Supply(chi.NewRouter()), fxsvc.Serve(fxsvc.Addr("127.0.0.1:0")))
			defer app.RequireStop()
			line := waitForLog(t, logs, "signing keys not loaded; retrying")
			m := line.ContextMap()
			if line.Level != zapcore.ErrorLevel || m["failure"] != "discovery status 404" ||
				m["url"] != idp.URL+"/.well-known/oauth-authorization-server/wrong" ||
				!strings.Contains(fmt.Sprint(m["error"]), "status 404") || m["next_attempt"] == nil {
				t.Fatalf("line: %v %v", line.Level, m)
			}
		})
	}
}

func waitForLog(t *testing.T, logs *observer.ObservedLogs, msg string) observer.LoggedEntry {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if found := logs.FilterMessage(msg).All(); len(found) > 0 {
			return found[0]
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %q line; logged: %v", msg, logs.All())
		}
		time.Sleep(5 * time.Millisecond)
	}
}
