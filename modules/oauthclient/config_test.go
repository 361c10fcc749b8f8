package oauthclient_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/svckit/svc/lifecycle"
	"github.com/svckit/svc/modules/oauthclient"
)

func TestNewRefusesBadSettings(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	os.WriteFile(empty, nil, 0o600)
	base := []oauthclient.Option{oauthclient.WithoutEnv(), oauthclient.ClientID("id"), oauthclient.ClientSecret("sec")}
	cases := []struct {
		name    string
		opts    []oauthclient.Option
		setting string
	}{
		{"no issuer or endpoint", base, "SVC_OAUTHCLIENT_ISSUER"},
		{"no client id", []oauthclient.Option{oauthclient.WithoutEnv(), oauthclient.TokenEndpoint("https://as.example/token"), oauthclient.ClientSecret("sec")}, "SVC_OAUTHCLIENT_CLIENT_ID"},
		{"no client auth", []oauthclient.Option{oauthclient.WithoutEnv(), oauthclient.TokenEndpoint("https://as.example/token"), oauthclient.ClientID("id")}, "SVC_OAUTHCLIENT_CLIENT_SECRET"},
		{"secret method without secret", []oauthclient.Option{oauthclient.WithoutEnv(), oauthclient.TokenEndpoint("https://as.example/token"), oauthclient.ClientID("id"), oauthclient.Secret(oauthclient.Basic)}, "SVC_OAUTHCLIENT_CLIENT_SECRET"},
		{"unknown secret method", append(base, oauthclient.TokenEndpoint("https://as.example/token"), oauthclient.Secret(7)), "oauthclient.Secret"},
		{"missing secret file", append(base, oauthclient.TokenEndpoint("https://as.example/token"), oauthclient.ClientSecretFile(filepath.Join(dir, "nope"))), "SVC_OAUTHCLIENT_CLIENT_SECRET_FILE"},
		{"empty secret file", append(base, oauthclient.TokenEndpoint("https://as.example/token"), oauthclient.ClientSecretFile(empty)), "SVC_OAUTHCLIENT_CLIENT_SECRET_FILE"},
		{"assertion file without path", append(base, oauthclient.TokenEndpoint("https://as.example/token"), oauthclient.AssertionFile("")), "SVC_OAUTHCLIENT_ASSERTION_FILE"},
		{"http issuer off loopback", append(base, oauthclient.Issuer("http://as.example")), "SVC_OAUTHCLIENT_ISSUER"},
		{"ftp endpoint", append(base, oauthclient.TokenEndpoint("ftp://as.example/token")), "SVC_OAUTHCLIENT_TOKEN_ENDPOINT"},
		{"relative endpoint", append(base, oauthclient.TokenEndpoint("/token")), "SVC_OAUTHCLIENT_TOKEN_ENDPOINT"},
		{"negative timeout", append(base, oauthclient.TokenEndpoint("https://as.example/token"), oauthclient.Timeout(-time.Second)), "SVC_OAUTHCLIENT_TIMEOUT"},
		{"negative retry interval", append(base, oauthclient.TokenEndpoint("https://as.example/token"), oauthclient.RetryInterval(-1)), "SVC_OAUTHCLIENT_RETRY_INTERVAL"},
		{"nil http client", append(base, oauthclient.TokenEndpoint("https://as.example/token"), oauthclient.HTTPClient(nil)), "oauthclient.HTTPClient"},
		{"private key without issuer", append(base, oauthclient.TokenEndpoint("https://as.example/token"), oauthclient.PrivateKey(rsaKeyPEM(t))), "SVC_OAUTHCLIENT_ISSUER"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := oauthclient.New(tc.opts...)
			var ce *oauthclient.ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("err = %v, want a ConfigError", err)
			}
			if ce.Setting != tc.setting {
				t.Fatalf("setting = %q, want %q (%v)", ce.Setting, tc.setting, err)
			}
			mustNotLeak(t, err, "sec\"", "s3cret")
		})
	}
}

func TestHTTPAllowedOnLoopbackAndWhenAsked(t *testing.T) {
	for _, opts := range [][]oauthclient.Option{
		{oauthclient.TokenEndpoint("http://127.0.0.1:9/token")},
		{oauthclient.TokenEndpoint("http://localhost:9/token")},
		{oauthclient.TokenEndpoint("http://[::1]:9/token")},
		{oauthclient.TokenEndpoint("http://as.internal/token"), oauthclient.AllowInsecureHTTP()},
	} {
		opts = append(opts, oauthclient.WithoutEnv(), oauthclient.ClientID("id"), oauthclient.ClientSecret("s"))
		if _, err := oauthclient.New(opts...); err != nil {
			t.Errorf("New: %v", err)
		}
	}
}

func TestEnvironmentIsReadAndCodeOverridesIt(t *testing.T) {
	dir := t.TempDir()
	secretFile := filepath.Join(dir, "secret")
	os.WriteFile(secretFile, []byte("from-file\n"), 0o600)
	s := newTokenServer(t)
	t.Setenv("SVC_OAUTHCLIENT_TOKEN_ENDPOINT", s.URL+"/token")
	t.Setenv("SVC_OAUTHCLIENT_CLIENT_ID", "env-id")
	t.Setenv("SVC_OAUTHCLIENT_CLIENT_SECRET_FILE", secretFile)
	t.Setenv("SVC_OAUTHCLIENT_TIMEOUT", "2.5")
	t.Setenv("SVC_OAUTHCLIENT_REFRESH_BEFORE", "30s")
	t.Setenv("SVC_CLIENTCREDENTIALS_BILLING_API_SCOPES", "invoices:read, invoices:write")
	t.Setenv("SVC_CLIENTCREDENTIALS_BILLING_API_AUDIENCE", "https://billing")

	c, err := oauthclient.New()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	if got := described(t, c)["client_id"]; got != "env-id" {
		t.Fatalf("client id %v", got)
	}
	p, err := oauthclient.ClientCredentials("billing-api", oauthclient.WithClient(c), oauthclient.Audience("https://code-wins"))
	if err != nil {
		t.Fatal(err)
	}
	mustToken(t, p)
	f := s.form(0)
	if got := f.Get("scope"); got != "invoices:read invoices:write" {
		t.Errorf("scope = %q", got)
	}
	if got := f["audience"]; len(got) != 1 || got[0] != "https://code-wins" {
		t.Errorf("audience = %q, want the code option over the environment", got)
	}
	if u, p, ok := basicCreds(t, s.header(0)); !ok || u != "env-id" || p != "from-file" {
		t.Errorf("basic creds = %q %q %v", u, p, ok)
	}

	// Code overrides the client's environment too.
	c2, err := oauthclient.New(oauthclient.ClientID("code-id"), oauthclient.ClientSecret("code-secret"))
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close(context.Background())
	if got := described(t, c2)["client_id"]; got != "code-id" {
		t.Fatalf("client id %v", got)
	}
}

func TestEnvironmentErrorsNameTheVariable(t *testing.T) {
	cases := map[string]string{
		"SVC_OAUTHCLIENT_TIMEOUT":        "soon",
		"SVC_OAUTHCLIENT_RETRY_INTERVAL": "NaN",
		"SVC_OAUTHCLIENT_REFRESH_BEFORE": "1e300",
	}
	for name, value := range cases {
		t.Run(name, func(t *testing.T) {
			t.Setenv("SVC_OAUTHCLIENT_TOKEN_ENDPOINT", "https://as.example/token")
			t.Setenv("SVC_OAUTHCLIENT_CLIENT_ID", "id")
			t.Setenv("SVC_OAUTHCLIENT_CLIENT_SECRET", "sec")
			t.Setenv(name, value)
			_, err := oauthclient.New()
			var ce *oauthclient.ConfigError
			if !errors.As(err, &ce) || ce.Setting != name {
				t.Fatalf("err = %v, want a ConfigError naming %s", err, name)
			}
		})
	}
	t.Run("secret and secret file", func(t *testing.T) {
		t.Setenv("SVC_OAUTHCLIENT_TOKEN_ENDPOINT", "https://as.example/token")
		t.Setenv("SVC_OAUTHCLIENT_CLIENT_ID", "id")
		t.Setenv("SVC_OAUTHCLIENT_CLIENT_SECRET", "topsecret-env")
		t.Setenv("SVC_OAUTHCLIENT_CLIENT_SECRET_FILE", "/x")
		_, err := oauthclient.New()
		var ce *oauthclient.ConfigError
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), "not both") {
			t.Fatalf("err = %v", err)
		}
		mustNotLeak(t, err, "topsecret-env")
	})
}

// Regression: issue 25 item 6.
// With part of the identity set, a missing issuer hid the fault of the
// setting that was given: each bad setting is reported, naming its own
// variable, and a blank client ID is refused as blank.
func TestEveryBadClientSettingNamesItsOwnVariable(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing")
	cases := []struct {
		name string
		env  map[string]string
		want []string
	}{
		{"missing assertion file", map[string]string{"SVC_OAUTHCLIENT_ASSERTION_FILE": missing},
			[]string{"SVC_OAUTHCLIENT_ASSERTION_FILE: cannot read the assertion file", "SVC_OAUTHCLIENT_ISSUER: set the issuer", "SVC_OAUTHCLIENT_CLIENT_ID: set the client ID"}},
		{"missing secret file", map[string]string{"SVC_OAUTHCLIENT_CLIENT_SECRET_FILE": missing},
			[]string{"SVC_OAUTHCLIENT_CLIENT_SECRET_FILE: cannot read the secret file", "SVC_OAUTHCLIENT_ISSUER: set the issuer", "SVC_OAUTHCLIENT_CLIENT_ID: set the client ID"}},
		{"blank client id", map[string]string{"SVC_OAUTHCLIENT_CLIENT_ID": "  "},
			[]string{"SVC_OAUTHCLIENT_CLIENT_ID: is blank", "SVC_OAUTHCLIENT_ISSUER: set the issuer", "SVC_OAUTHCLIENT_CLIENT_SECRET: no client authentication"}},
		{"client id with spaces", map[string]string{"SVC_OAUTHCLIENT_TOKEN_ENDPOINT": "https://as.example/token", "SVC_OAUTHCLIENT_CLIENT_ID": "svc ", "SVC_OAUTHCLIENT_CLIENT_SECRET": "s3cret"},
			[]string{"SVC_OAUTHCLIENT_CLIENT_ID: has leading or trailing spaces"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, v := range []string{"ISSUER", "TOKEN_ENDPOINT", "CLIENT_ID", "CLIENT_SECRET", "CLIENT_SECRET_FILE", "ASSERTION_FILE", "AUTH_METHOD"} {
				t.Setenv("SVC_OAUTHCLIENT_"+v, tc.env["SVC_OAUTHCLIENT_"+v])
			}
			_, err := oauthclient.New()
			if err == nil {
				t.Fatal("accepted")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error does not say %q:\n%v", w, err)
				}
			}
			var ce *oauthclient.ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("err = %v, want ConfigErrors", err)
			}
			if j, ok := err.(interface{ Unwrap() []error }); (len(tc.want) > 1) != ok || (ok && len(j.Unwrap()) != len(tc.want)) {
				t.Fatalf("want %d errors, got %v", len(tc.want), err)
			}
			mustNotLeak(t, err, "s3cret")
		})
	}
}

func TestWithoutEnvIgnoresEnvironment(t *testing.T) {
	t.Setenv("SVC_OAUTHCLIENT_TOKEN_ENDPOINT", "https://as.example/token")
	t.Setenv("SVC_OAUTHCLIENT_CLIENT_ID", "id")
	t.Setenv("SVC_OAUTHCLIENT_CLIENT_SECRET", "sec")
	if _, err := oauthclient.New(oauthclient.WithoutEnv()); err == nil {
		t.Fatal("New read the environment despite WithoutEnv")
	}
}

func TestPatternRefusals(t *testing.T) {
	s := newTokenServer(t)
	c := newClient(t, s, newClock())
	for _, name := range []string{"", "bad name", `quo"te`, strings.Repeat("a", 65), "tab\t"} {
		if _, err := oauthclient.ClientCredentials(name, oauthclient.WithClient(c)); err == nil {
			t.Errorf("name %q accepted", name)
		}
	}
	if _, err := oauthclient.ClientCredentials("billing", oauthclient.WithoutEnv()); err == nil || !strings.Contains(err.Error(), "WithClient") {
		t.Errorf("pattern without client: %v", err)
	}
	if _, err := oauthclient.TokenExchange("x", oauthclient.WithClient(c), oauthclient.Resource("not a url")); err == nil {
		t.Error("relative resource accepted")
	}
	t.Setenv("SVC_TOKENEXCHANGE_X_RESOURCE", "relative/path")
	_, err := oauthclient.TokenExchange("x", oauthclient.WithClient(c))
	var ce *oauthclient.ConfigError
	if !errors.As(err, &ce) || ce.Setting != "SVC_TOKENEXCHANGE_X_RESOURCE" {
		t.Errorf("bad env resource: %v", err)
	}
	if _, err := oauthclient.TokenExchange("x", oauthclient.WithClient(c), oauthclient.ExchangeCacheSize(0)); err == nil {
		t.Error("cache size 0 accepted")
	}
}

// Regression: issue 25 item 7.
// Scopes that are not RFC 6749 §3.3 scope-tokens were accepted and sent;
// each is refused, naming the variable (or option) and the scope.
func TestPatternRefusesScopesThatAreNotScopeTokens(t *testing.T) {
	s := newTokenServer(t)
	c := newClient(t, s, newClock())
	for _, tc := range []struct {
		name, variable, value, want string
	}{
		{"quote", "SVC_CLIENTCREDENTIALS_PRICING_SCOPES", `read "admin"`, `scope "\"admin\"" holds a character`},
		{"backslash", "SVC_CLIENTCREDENTIALS_PRICING_SCOPES", `read,ad\min`, `scope "ad\\min" holds a character`},
		{"control character", "SVC_CLIENTCREDENTIALS_PRICING_SCOPES", "read\x01admin", `scope "read\x01admin" holds a character`},
		{"non-breaking space", "SVC_TOKENEXCHANGE_PRICING_SCOPES", "read\u00a0admin", `scope "read\u00a0admin" holds a character`},
		{"DEL", "SVC_TOKENEXCHANGE_PRICING_SCOPES", "read\x7f", `scope "read\x7f" holds a character`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(tc.variable, tc.value)
			build := oauthclient.ClientCredentials
			if strings.HasPrefix(tc.variable, "SVC_TOKENEXCHANGE_") {
				build = oauthclient.TokenExchange
			}
			_, err := build("pricing", oauthclient.WithClient(c))
			var ce *oauthclient.ConfigError
			if !errors.As(err, &ce) || ce.Setting != tc.variable || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want a ConfigError naming %s and saying %s", err, tc.variable, tc.want)
			}
		})
	}
	t.Setenv("SVC_CLIENTCREDENTIALS_PRICING_SCOPES", "read, write:all  https://api.example/x")
	if _, err := oauthclient.ClientCredentials("pricing", oauthclient.WithClient(c)); err != nil {
		t.Fatalf("scope-tokens refused: %v", err)
	}
	for _, bad := range []string{"", "two words", `q"`} {
		_, err := oauthclient.ClientCredentials("pricing", oauthclient.WithClient(c), oauthclient.Scopes("read", bad))
		var ce *oauthclient.ConfigError
		if !errors.As(err, &ce) || ce.Setting != "oauthclient.Scopes" {
			t.Errorf("Scopes(%q): err = %v, want a ConfigError naming oauthclient.Scopes", bad, err)
		}
	}
}

func TestDiscovery(t *testing.T) {
	t.Run("reads the token endpoint", func(t *testing.T) {
		s := newTokenServer(t)
		c := newClient(t, s, newClock())
		mustToken(t, newCC(t, c, "api"))
		if s.disco.Load() != 1 {
			t.Fatalf("discovery requests = %d", s.disco.Load())
		}
	})
	t.Run("falls back to OpenID Connect discovery", func(t *testing.T) {
		s := newTokenServer(t)
		s.oidcOnly = true
		c := newClient(t, s, newClock())
		mustToken(t, newCC(t, c, "api"))
		if s.disco.Load() != 2 {
			t.Fatalf("discovery requests = %d, want RFC 8414 then OIDC", s.disco.Load())
		}
	})
	t.Run("a token endpoint skips discovery", func(t *testing.T) {
		s := newTokenServer(t)
		c := newClient(t, s, newClock(), oauthclient.TokenEndpoint(s.URL+"/token"))
		mustToken(t, newCC(t, c, "api"))
		if s.disco.Load() != 0 {
			t.Fatalf("discovery requests = %d", s.disco.Load())
		}
	})
	t.Run("another issuer fails open", func(t *testing.T) {
		s := newTokenServer(t)
		s.issuerName = "https://evil.example"
		c, err := oauthclient.New(oauthclient.WithoutEnv(), oauthclient.Issuer(s.URL), oauthclient.ClientID("id"), oauthclient.ClientSecret("x"))
		if err != nil {
			t.Fatal(err)
		}
		err = c.Open(context.Background())
		var de *oauthclient.DiscoveryError
		if !errors.As(err, &de) || !strings.Contains(err.Error(), "another issuer") {
			t.Fatalf("Open: %v", err)
		}
	})
	t.Run("no metadata fails open", func(t *testing.T) {
		s := newTokenServer(t)
		s.noMetadata = true
		c, _ := oauthclient.New(oauthclient.WithoutEnv(), oauthclient.Issuer(s.URL+"/tenant"), oauthclient.ClientID("id"), oauthclient.ClientSecret("x"))
		err := c.Open(context.Background())
		var de *oauthclient.DiscoveryError
		if !errors.As(err, &de) || !strings.Contains(err.Error(), "404, 404") {
			t.Fatalf("Open: %v", err)
		}
		if s.disco.Load() != 2 {
			t.Fatalf("want both well-known paths tried, got %d requests", s.disco.Load())
		}
	})
	t.Run("a server that is down does not fail open, and is asked again later", func(t *testing.T) {
		s := newTokenServer(t)
		url := s.URL
		s.Close()
		clk := newClock()
		c, _ := oauthclient.New(oauthclient.WithoutEnv(), oauthclient.Issuer(url), oauthclient.ClientID("id"),
			oauthclient.ClientSecret("x"), oauthclient.Clock(clk.Now), oauthclient.RetryInterval(time.Minute))
		defer c.Close(context.Background())
		if err := c.Open(context.Background()); err != nil {
			t.Fatalf("Open: %v", err)
		}
		p := newCC(t, c, "api")
		_, err := p.Token(context.Background())
		var ue *oauthclient.UnavailableError
		if !errors.As(err, &ue) || ue.Reason != oauthclient.ReasonConnection {
			t.Fatalf("Token: %v", err)
		}
	})
}

var _ lifecycle.Component = (*oauthclient.Client)(nil)

func TestUnreadableSecretFileIsRememberedNotReread(t *testing.T) {
	path := filepath.Join(t.TempDir(), "secret")
	os.WriteFile(path, []byte("x"), 0o600)
	s := newTokenServer(t)
	clk := newClock()
	p := newCC(t, newClient(t, s, clk, oauthclient.ClientSecretFile(path)), "api")
	os.Remove(path)
	_, err := p.Token(context.Background())
	var ce *oauthclient.ConfigError
	if !errors.As(err, &ce) || ce.Setting != "SVC_OAUTHCLIENT_CLIENT_SECRET_FILE" {
		t.Fatalf("err = %v", err)
	}
	os.WriteFile(path, []byte("back"), 0o600)
	if _, err := p.Token(context.Background()); !errors.As(err, &ce) {
		t.Fatalf("re-read within retry_interval: %v", err)
	}
	clk.Advance(10 * time.Second)
	mustToken(t, p)
}

func TestOpenAndCloseAreALifecycleComponent(t *testing.T) {
	s := newTokenServer(t)
	c := newClient(t, s, newClock())
	if c.Name() != "oauthclient" {
		t.Fatal(c.Name())
	}
	p := newCC(t, c, "api")
	mustToken(t, p)
	if err := c.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(context.Background()); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if _, err := p.Token(context.Background()); !errors.Is(err, oauthclient.ErrClosed) {
		t.Fatalf("Token after Close: %v", err)
	}
}

// Regression: issue 24 item 2: a malformed URL setting says what is wrong
// with it, as the inbound issuer's does.
func TestMalformedURLsSayWhatIsWrong(t *testing.T) {
	for raw, want := range map[string]string{
		"https://as.example:":      "SVC_OAUTHCLIENT_ISSUER: ends its host with a colon and no port",
		"as.example":               "SVC_OAUTHCLIENT_ISSUER: has no scheme",
		"https://as.example:99999": "SVC_OAUTHCLIENT_ISSUER: has a port outside 1 to 65535",
		"https://as.example/#frag": "SVC_OAUTHCLIENT_ISSUER: has a fragment",
		"https://u:s3cret@:443/x":  "SVC_OAUTHCLIENT_ISSUER: has an empty host",
	} {
		_, err := oauthclient.New(oauthclient.WithoutEnv(), oauthclient.Issuer(raw), oauthclient.ClientID("id"), oauthclient.ClientSecret("sec"))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Issuer(%q): err = %v, want %q", raw, err, want)
		}
		mustNotLeak(t, err, "s3cret")
	}
}
