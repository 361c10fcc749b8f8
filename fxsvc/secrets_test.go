package fxsvc_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"go.uber.org/fx"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/svckit/svc/fxsvc"
	"github.com/svckit/svc/modules/oauthclient"
	_ "github.com/svckit/svc/modules/redisstore/fxredis"
)

// password is what every case hides in a setting; no output may hold it.
const password = "supersecret"

// flushFailed is what the metrics exporter logs when its final flush, at
// stop, fails.
const flushFailed = "metrics flush failed"

// leakVars are the variables the leak test sets, cleared before each case
// so that only the case's own values are read.
var leakVars = []string{
	"SVC_HTTP_ADDR", "SVC_HTTP_TLS_CERT_FILE", "SVC_HTTP_TLS_KEY_FILE",
	"SVC_AUTHN_ISSUER", "SVC_AUTHN_AUDIENCE",
	"SVC_OAUTHCLIENT_ISSUER", "SVC_OAUTHCLIENT_TOKEN_ENDPOINT", "SVC_OAUTHCLIENT_CLIENT_ID",
	"SVC_OAUTHCLIENT_CLIENT_SECRET", "SVC_OAUTHCLIENT_CLIENT_SECRET_FILE", "SVC_OAUTHCLIENT_ASSERTION_FILE",
	"SVC_OAUTHCLIENT_AUTH_METHOD",
	"SVC_CLIENTCREDENTIALS_BILLING_RESOURCE", "SVC_CLIENTCREDENTIALS_BILLING_AUDIENCE",
	"SVC_TOKENEXCHANGE_LEDGER_RESOURCE", "SVC_TOKENEXCHANGE_LEDGER_AUDIENCE",
	"SVC_REDIS_URL", "SVC_REDIS_TLS_CA_FILE",
	"SVC_METRICS_EXPORTER", "SVC_METRICS_ENDPOINT", "SVC_METRICS_HEADERS",
	"SVC_METRICS_BASIC_AUTH_USERNAME", "SVC_METRICS_BASIC_AUTH_PASSWORD", "SVC_METRICS_EXPORT_TIMEOUT",
	"SVC_TRACING_EXPORTER", "SVC_TRACING_ENDPOINT", "SVC_TRACING_HEADERS",
	"SVC_TRACING_BASIC_AUTH_USERNAME", "SVC_TRACING_BASIC_AUTH_PASSWORD", "SVC_TRACING_EXPORT_TIMEOUT",
	"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
	"OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_METRICS_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS",
}

// leakBase is a deployment that starts: an issuer and an authorization
// server that are down (so their failures are logged), a client secret,
// no exporter.
var leakBase = map[string]string{
	"SVC_HTTP_ADDR":                  "127.0.0.1:0",
	"SVC_AUTHN_ISSUER":               "http://127.0.0.1:1",
	"SVC_AUTHN_AUDIENCE":             "api",
	"SVC_OAUTHCLIENT_TOKEN_ENDPOINT": "http://127.0.0.1:1/token",
	"SVC_OAUTHCLIENT_CLIENT_ID":      "svc",
	"SVC_OAUTHCLIENT_CLIENT_SECRET":  password,
	"SVC_METRICS_EXPORTER":           "none",
	"SVC_TRACING_EXPORTER":           "none",
}

// Regression: issue 25 item 1.
// A password or key in any URL-valued or secret-valued setting appears in
// no error and no log line, whichever way the setting fails: malformed,
// refused, unreachable, or refused in combination with another. Each case
// also names what its output must show, so that a case whose failure path
// was never reached fails rather than passes for want of output.
func TestNoSettingLeaksItsSecret(t *testing.T) {
	dir := t.TempDir()
	secretFile := writeFile(t, dir, "secret", password+"\n")
	keyFile := writeFile(t, dir, "key.pem", "-----BEGIN PRIVATE KEY-----\n"+password+"\n-----END PRIVATE KEY-----\n")
	certFile := writeFile(t, dir, "cert.pem", "not a certificate "+password+"\n")
	// An authorization server that refuses the client and echoes what it
	// was sent, as some do in error_description.
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		user, pass, _ := r.BasicAuth()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, `{"error":"invalid_client","error_description":"bad secret %s%s%s"}`, r.PostForm.Get("client_secret"), user, pass)
	}))
	t.Cleanup(echo.Close)

	userinfo := "user:" + password + "@"
	cases := []struct {
		name  string
		env   map[string]string
		redis bool
		want  string // what the output must show: the failure was reached
	}{
		// Inbound trust.
		{"issuer with user information", map[string]string{"SVC_AUTHN_ISSUER": "https://" + userinfo + "idp.example.com"}, false, "SVC_AUTHN_ISSUER"},
		{"issuer over http with user information", map[string]string{"SVC_AUTHN_ISSUER": "http://" + userinfo + "idp.example.com"}, false, "SVC_AUTHN_ISSUER"},
		{"issuer with a bad port", map[string]string{"SVC_AUTHN_ISSUER": "https://" + userinfo + "idp.example.com:port"}, false, "SVC_AUTHN_ISSUER"},
		{"issuer without a scheme", map[string]string{"SVC_AUTHN_ISSUER": userinfo + "idp.example.com"}, false, "SVC_AUTHN_ISSUER"},
		{"issuer with a query", map[string]string{"SVC_AUTHN_ISSUER": "https://idp.example.com/?key=" + password}, false, "SVC_AUTHN_ISSUER"},
		{"issuer with a fragment", map[string]string{"SVC_AUTHN_ISSUER": "https://idp.example.com/#" + password}, false, "SVC_AUTHN_ISSUER"},
		{"audience with spaces", map[string]string{"SVC_AUTHN_AUDIENCE": " https://" + userinfo + "api.example "}, false, "SVC_AUTHN_AUDIENCE"},

		// The outbound client: issuer, token endpoint, secrets.
		{"client issuer with user information, down", map[string]string{"SVC_OAUTHCLIENT_TOKEN_ENDPOINT": "", "SVC_OAUTHCLIENT_ISSUER": "http://" + userinfo + "127.0.0.1:1"}, false, "discovery failed"},
		{"client issuer with a query, down", map[string]string{"SVC_OAUTHCLIENT_TOKEN_ENDPOINT": "", "SVC_OAUTHCLIENT_ISSUER": "http://127.0.0.1:1/?key=" + password}, false, "discovery failed"},
		{"client issuer with user information, no metadata", map[string]string{"SVC_OAUTHCLIENT_TOKEN_ENDPOINT": "",
			"SVC_OAUTHCLIENT_ISSUER": "http://" + userinfo + strings.TrimPrefix(echo.URL, "http://")}, false, "SVC_OAUTHCLIENT_ISSUER"},
		{"client issuer with a bad scheme", map[string]string{"SVC_OAUTHCLIENT_ISSUER": "ftp://" + userinfo + "as.example"}, false, "SVC_OAUTHCLIENT_ISSUER"},
		{"client issuer with a bad port", map[string]string{"SVC_OAUTHCLIENT_ISSUER": "https://" + userinfo + "as.example:port"}, false, "SVC_OAUTHCLIENT_ISSUER"},
		{"client issuer with a fragment", map[string]string{"SVC_OAUTHCLIENT_ISSUER": "https://as.example/#" + password}, false, "SVC_OAUTHCLIENT_ISSUER"},
		{"token endpoint with user information, down", map[string]string{"SVC_OAUTHCLIENT_TOKEN_ENDPOINT": "http://" + userinfo + "127.0.0.1:1/token"}, false, "test: token fetch failed"},
		{"token endpoint with a query, down", map[string]string{"SVC_OAUTHCLIENT_TOKEN_ENDPOINT": "http://127.0.0.1:1/token?key=" + password}, false, "test: token fetch failed"},
		{"token endpoint with a bad scheme", map[string]string{"SVC_OAUTHCLIENT_TOKEN_ENDPOINT": "ftp://" + userinfo + "as.example/token"}, false, "SVC_OAUTHCLIENT_TOKEN_ENDPOINT"},
		{"token endpoint with a bad port", map[string]string{"SVC_OAUTHCLIENT_TOKEN_ENDPOINT": "https://" + userinfo + "as.example:port/token"}, false, "SVC_OAUTHCLIENT_TOKEN_ENDPOINT"},
		{"token endpoint that echoes the secret", map[string]string{"SVC_OAUTHCLIENT_TOKEN_ENDPOINT": echo.URL + "/token"}, false, "invalid_client"},
		{"client secret sent in the body, echoed", map[string]string{"SVC_OAUTHCLIENT_TOKEN_ENDPOINT": echo.URL + "/token", "SVC_OAUTHCLIENT_AUTH_METHOD": "post"}, false, "invalid_client"},
		{"client secret and secret file", map[string]string{"SVC_OAUTHCLIENT_CLIENT_SECRET_FILE": secretFile}, false, "SVC_OAUTHCLIENT_CLIENT_SECRET"},
		{"client secret with a bad auth method", map[string]string{"SVC_OAUTHCLIENT_AUTH_METHOD": "jwt-" + password}, false, "SVC_OAUTHCLIENT_AUTH_METHOD"},
		{"client secret without a client id", map[string]string{"SVC_OAUTHCLIENT_CLIENT_ID": ""}, false, "SVC_OAUTHCLIENT_CLIENT_ID"},
		{"client secret file, down", map[string]string{"SVC_OAUTHCLIENT_CLIENT_SECRET": "", "SVC_OAUTHCLIENT_CLIENT_SECRET_FILE": secretFile}, false, "test: token fetch failed"},
		{"client secret file, echoed", map[string]string{"SVC_OAUTHCLIENT_CLIENT_SECRET": "", "SVC_OAUTHCLIENT_CLIENT_SECRET_FILE": secretFile, "SVC_OAUTHCLIENT_TOKEN_ENDPOINT": echo.URL + "/token"}, false, "invalid_client"},
		{"resource with user information", map[string]string{"SVC_CLIENTCREDENTIALS_BILLING_RESOURCE": "https://" + userinfo + "api.example/#" + password}, false, "SVC_CLIENTCREDENTIALS_BILLING_RESOURCE"},
		{"exchange resource with user information", map[string]string{"SVC_TOKENEXCHANGE_LEDGER_RESOURCE": "https://" + userinfo + "api.example:port"}, false, "SVC_TOKENEXCHANGE_LEDGER_RESOURCE"},

		// Redis.
		{"redis down", map[string]string{"SVC_REDIS_URL": "redis://" + userinfo + "127.0.0.1:1/0"}, true, "SVC_REDIS_URL"},
		{"redis password only, down", map[string]string{"SVC_REDIS_URL": "redis://:" + password + "@127.0.0.1:1/0"}, true, "SVC_REDIS_URL"},
		{"redis with a bad scheme", map[string]string{"SVC_REDIS_URL": "http://" + userinfo + "127.0.0.1:1"}, true, "SVC_REDIS_URL"},
		{"redis with a bad port", map[string]string{"SVC_REDIS_URL": "redis://" + userinfo + "127.0.0.1:port"}, true, "SVC_REDIS_URL"},
		{"redis with a bad option", map[string]string{"SVC_REDIS_URL": "redis://127.0.0.1:1/0?dial_timeout=" + password}, true, "SVC_REDIS_URL"},
		{"redis without TLS but a CA", map[string]string{"SVC_REDIS_URL": "redis://" + userinfo + "127.0.0.1:1", "SVC_REDIS_TLS_CA_FILE": filepath.Join(dir, "none.pem")}, true, "SVC_REDIS_TLS_CA_FILE"},

		// Metrics and tracing exporters.
		{"metrics endpoint with user information, down", otlp("METRICS", "otlp-http", "SVC_METRICS_ENDPOINT", "http://"+userinfo+"127.0.0.1:1"), false, flushFailed},
		{"metrics endpoint with a query, down", otlp("METRICS", "otlp-http", "SVC_METRICS_ENDPOINT", "http://127.0.0.1:1/v1/metrics?key="+password), false, flushFailed},
		{"metrics grpc endpoint with user information, down", otlp("METRICS", "otlp-grpc", "SVC_METRICS_ENDPOINT", "http://"+userinfo+"127.0.0.1:1"), false, flushFailed},
		{"metrics endpoint with a bad scheme", otlp("METRICS", "otlp-http", "SVC_METRICS_ENDPOINT", "ftp://"+userinfo+"c.example"), false, "SVC_METRICS_ENDPOINT"},
		{"metrics endpoint with a bad port", otlp("METRICS", "otlp-http", "SVC_METRICS_ENDPOINT", "http://"+userinfo+"c.example:port"), false, "SVC_METRICS_ENDPOINT"},
		{"metrics credentials twice", with(otlp("METRICS", "otlp-http", "SVC_METRICS_ENDPOINT", "http://"+userinfo+"c.example"),
			"SVC_METRICS_BASIC_AUTH_USERNAME", "u", "SVC_METRICS_BASIC_AUTH_PASSWORD", password), false, "SVC_METRICS_ENDPOINT"},
		{"metrics password without a user", with(otlp("METRICS", "otlp-http", "SVC_METRICS_ENDPOINT", "http://127.0.0.1:1"),
			"SVC_METRICS_BASIC_AUTH_PASSWORD", password), false, "SVC_METRICS_BASIC_AUTH"},
		{"metrics password, down", with(otlp("METRICS", "otlp-http", "SVC_METRICS_ENDPOINT", "http://127.0.0.1:1"),
			"SVC_METRICS_BASIC_AUTH_USERNAME", "u", "SVC_METRICS_BASIC_AUTH_PASSWORD", password), false, flushFailed},
		{"metrics header written with a colon", with(otlp("METRICS", "otlp-http", "SVC_METRICS_ENDPOINT", "http://127.0.0.1:1"),
			"SVC_METRICS_HEADERS", "Authorization: Bearer "+password), false, "SVC_METRICS_HEADERS"},
		{"metrics header badly encoded", with(otlp("METRICS", "otlp-http", "SVC_METRICS_ENDPOINT", "http://127.0.0.1:1"),
			"SVC_METRICS_HEADERS", "x-key="+password+"%zz"), false, "SVC_METRICS_HEADERS"},
		{"metrics header with a control character", with(otlp("METRICS", "otlp-http", "SVC_METRICS_ENDPOINT", "http://127.0.0.1:1"),
			"SVC_METRICS_HEADERS", "x-key="+password+"%01"), false, "SVC_METRICS_HEADERS"},
		{"metrics header, down", with(otlp("METRICS", "otlp-http", "SVC_METRICS_ENDPOINT", "http://127.0.0.1:1"),
			"SVC_METRICS_HEADERS", "x-key="+password), false, flushFailed},
		{"tracing endpoint with a bad scheme", otlp("TRACING", "otlp-http", "SVC_TRACING_ENDPOINT", "ftp://"+userinfo+"c.example"), false, "SVC_TRACING_ENDPOINT"},
		{"tracing endpoint with a bad port", otlp("TRACING", "otlp-grpc", "SVC_TRACING_ENDPOINT", "http://"+userinfo+"c.example:port"), false, "SVC_TRACING_ENDPOINT"},
		{"tracing credentials twice", with(otlp("TRACING", "otlp-http", "SVC_TRACING_ENDPOINT", "http://"+userinfo+"c.example"),
			"SVC_TRACING_BASIC_AUTH_USERNAME", "u", "SVC_TRACING_BASIC_AUTH_PASSWORD", password), false, "SVC_TRACING_ENDPOINT"},
		{"tracing user without a password", with(otlp("TRACING", "otlp-http", "SVC_TRACING_ENDPOINT", "http://127.0.0.1:1?k="+password),
			"SVC_TRACING_BASIC_AUTH_USERNAME", "u"), false, "SVC_TRACING_BASIC_AUTH"},
		{"tracing header written with a colon", with(otlp("TRACING", "otlp-http", "SVC_TRACING_ENDPOINT", "http://127.0.0.1:1"),
			"SVC_TRACING_HEADERS", "Authorization: Bearer "+password), false, "SVC_TRACING_HEADERS"},
		{"OTLP endpoint with user information, down", otlp("METRICS", "otlp-http", "OTEL_EXPORTER_OTLP_ENDPOINT", "http://"+userinfo+"127.0.0.1:1"), false, flushFailed},
		{"OTLP metrics endpoint with a bad scheme", otlp("METRICS", "otlp-http", "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "ftp://"+userinfo+"c.example"), false, "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT"},
		{"OTLP traces endpoint with a bad port", otlp("TRACING", "otlp-http", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://"+userinfo+"c.example:port"), false, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"},
		{"OTLP headers written with a colon", with(otlp("METRICS", "otlp-http", "SVC_METRICS_ENDPOINT", "http://127.0.0.1:1"),
			"OTEL_EXPORTER_OTLP_HEADERS", "Authorization: Basic "+password), false, "OTEL_EXPORTER_OTLP_HEADERS"},
		{"OTLP metrics headers badly encoded", with(otlp("METRICS", "otlp-http", "SVC_METRICS_ENDPOINT", "http://127.0.0.1:1"),
			"OTEL_EXPORTER_OTLP_METRICS_HEADERS", "x-key="+password+"%zz"), false, "OTEL_EXPORTER_OTLP_METRICS_HEADERS"},
		{"OTLP traces headers with a control character", with(otlp("TRACING", "otlp-http", "SVC_TRACING_ENDPOINT", "http://127.0.0.1:1"),
			"OTEL_EXPORTER_OTLP_TRACES_HEADERS", "x-key="+password+"%01"), false, "OTEL_EXPORTER_OTLP_TRACES_HEADERS"},

		// The server's key.
		{"TLS key that does not parse", map[string]string{"SVC_HTTP_TLS_CERT_FILE": certFile, "SVC_HTTP_TLS_KEY_FILE": keyFile}, false, "SVC_HTTP_TLS"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, k := range leakVars {
				t.Setenv(k, leakBase[k])
			}
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			waitFor := tc.want
			if tc.want == flushFailed {
				waitFor = "" // the final flush runs at stop
			}
			out := runLeaking(t, tc.redis, waitFor)
			if strings.Contains(out, password) {
				t.Fatalf("the password reached the output:\n%s", out)
			}
			if os.Getenv("LEAK_DEBUG") != "" {
				t.Log(out)
			}
			if !strings.Contains(out, tc.want) {
				t.Fatalf("the output does not show %q: the failure was not reached:\n%s", tc.want, out)
			}
		})
	}
}

// runLeaking runs the app as Main would with every component that reads a
// URL or a secret, fetches one token once started, and stops once the
// log shows waitFor (or after a generous deadline). It returns stdout,
// stderr and every log record with its fields.
func runLeaking(t *testing.T, redis bool, waitFor string) string {
	t.Helper()
	core, logs := observer.New(zap.DebugLevel)
	log := zap.New(core)
	dump := func() string {
		var b strings.Builder
		for _, e := range logs.All() {
			fmt.Fprintf(&b, "%s %s %s %v\n", e.Level, e.LoggerName, e.Message, e.ContextMap())
		}
		return b.String()
	}
	opts := []fx.Option{
		fx.Supply(log, chi.NewRouter()),
		fxsvc.Errors(), fxsvc.Authn(nil), fxsvc.OAuthClient(),
		fxsvc.ClientCredentials("billing"), fxsvc.TokenExchange("ledger"),
		fxsvc.Metrics(), fxsvc.Tracing(), fxsvc.Health(), fxsvc.Serve(),
		fx.Invoke(fx.Annotate(func(lc fx.Lifecycle, sd fx.Shutdowner, p *oauthclient.Pattern) {
			stop, done := make(chan struct{}), make(chan struct{})
			lc.Append(fx.Hook{
				OnStart: func(context.Context) error {
					go func() {
						defer close(done)
						ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
						if _, err := p.Token(ctx); err != nil {
							log.Warn("test: token fetch failed", zap.Error(err))
						}
						cancel()
						deadline := time.After(10 * time.Second)
						for !strings.Contains(dump(), waitFor) {
							select {
							case <-stop:
								return
							case <-deadline:
								_ = sd.Shutdown()
								return
							case <-time.After(10 * time.Millisecond):
							}
						}
						_ = sd.Shutdown()
					}()
					return nil
				},
				OnStop: func(context.Context) error { close(stop); <-done; return nil },
			})
		}, fx.ParamTags(``, ``, `name:"billing"`))),
	}
	if redis {
		opts = append(opts, fxsvc.Redis())
	}
	var stdout, stderr bytes.Buffer
	fxsvc.Run(nil, &stdout, &stderr, opts...)
	return stdout.String() + stderr.String() + dump()
}

// otlp sets one signal's exporter and an endpoint variable.
func otlp(signal, exporter, endpointVar, endpoint string) map[string]string {
	return map[string]string{"SVC_" + signal + "_EXPORTER": exporter, "SVC_" + signal + "_EXPORT_TIMEOUT": "2s", endpointVar: endpoint}
}

// with adds key, value pairs to env.
func with(env map[string]string, kv ...string) map[string]string {
	for i := 0; i+1 < len(kv); i += 2 {
		env[kv[i]] = kv[i+1]
	}
	return env
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
