package oidcprovider

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/svckit/svc/internal/testcert"
)

func TestBuildConfigRefusals(t *testing.T) {
	t.Parallel()
	testCA := testcert.CertPEM(testcert.NewCA(t).Cert.Raw)
	cases := []struct {
		name string
		opts Options
		want string
	}{
		{"duplicate client", Options{Clients: []Client{{ID: DefaultClientID, Secret: "x"}}}, `client ID "svc-test-client" is empty or used twice`},
		{"empty client ID", Options{Clients: []Client{{Secret: "x"}}}, `client ID "" is empty or used twice`},
		{"unknown auth method", Options{Clients: []Client{{ID: "a", Secret: "x", AuthMethod: "attest_jwt_client_auth"}}}, `AuthMethod "attest_jwt_client_auth": want one of`},
		{"certificate method without MTLS", Options{Clients: []Client{{ID: "a", AuthMethod: "tls_client_auth", SubjectDN: "CN=a"}}}, `AuthMethod "tls_client_auth" needs Options.MTLS`},
		{"MTLS without a client CA", Options{MTLS: true}, "Options.MTLS needs Options.ClientCA"},
		{"tls_client_auth without a subject", Options{MTLS: true, ClientCA: testCA, Clients: []Client{{ID: "a", AuthMethod: "tls_client_auth"}}}, "tls_client_auth needs Client.SubjectDN"},
		{"self_signed_tls_client_auth without JWKS", Options{MTLS: true, ClientCA: testCA, Clients: []Client{{ID: "a", AuthMethod: "self_signed_tls_client_auth"}}}, "self_signed_tls_client_auth needs Client.JWKS"},
		{"private_key_jwt without JWKS", Options{Clients: []Client{{ID: "a", AuthMethod: "private_key_jwt"}}}, "private_key_jwt needs Client.JWKS"},
		{"JWKS not JSON", Options{Clients: []Client{{ID: "a", JWKS: json.RawMessage(`[`)}}}, "Client.JWKS is not a JWK Set"},
		{"secret method without secret", Options{Clients: []Client{{ID: "a", AuthMethod: "client_secret_post"}}}, "client_secret_post needs Client.Secret"},
		{"signing alg", Options{SigningAlg: "HS256"}, `Options.SigningAlg "HS256"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := buildConfig(tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestBuildConfigDefaults(t *testing.T) {
	t.Parallel()
	cfg, err := buildConfig(Options{AccessTokenTTL: 1100 * time.Millisecond, Clients: []Client{
		{ID: "k", JWKS: json.RawMessage(`{"keys":[]}`)},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Resource != DefaultResource || cfg.ResourceScope != defaultScope || cfg.SigningAlg != "ES256" ||
		cfg.AccessTokenTTL != 2 || len(cfg.AdminToken) != 32 || cfg.Resources != nil {
		t.Errorf("config %+v", cfg)
	}
	if len(cfg.Clients) != 2 || cfg.Clients[0]["client_id"] != DefaultClientID ||
		cfg.Clients[0]["token_endpoint_auth_method"] != "client_secret_basic" ||
		cfg.Clients[1]["token_endpoint_auth_method"] != "private_key_jwt" ||
		strings.Join(cfg.Clients[1]["grant_types"].([]string), " ") != GrantClientCredentials+" "+GrantTokenExchange ||
		cfg.Clients[1]["scope"] != defaultScope {
		t.Errorf("clients %v", cfg.Clients)
	}
	if _, hasSecret := cfg.Clients[1]["client_secret"]; hasSecret {
		t.Errorf("private_key_jwt client registered with a secret")
	}
}

// fatalTB records the first Fatal and ends the goroutine, as testing.T does.
type fatalTB struct {
	testing.TB
	msg      string
	cleanups []func()
}

func (f *fatalTB) Helper() {}

func (f *fatalTB) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func (f *fatalTB) Fatal(args ...any) {
	f.msg = fmt.Sprint(args...)
	runtime.Goexit()
}

func (f *fatalTB) Cleanup(fn func()) { f.cleanups = append(f.cleanups, fn) }

func (f *fatalTB) Failed() bool { return f.msg != "" }

// startFailure runs Start on a fatalTB and returns its Fatal message.
func startFailure(t *testing.T, opts Options) string {
	t.Helper()
	f := &fatalTB{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		Start(f, opts)
	}()
	<-done
	for i := len(f.cleanups) - 1; i >= 0; i-- {
		f.cleanups[i]()
	}
	if f.msg == "" {
		t.Fatal("Start did not fail the test")
	}
	return f.msg
}

// These tests change the environment, so they are not parallel.
func TestStartRefusals(t *testing.T) {
	noModules := t.TempDir()
	if err := os.WriteFile(filepath.Join(noModules, "server.mjs"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	crashing := t.TempDir()
	if err := os.MkdirAll(filepath.Join(crashing, "node_modules", "oidc-provider"), 0o700); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{
		"server.mjs": "console.error('boom from server.mjs'); process.exit(3);\n",
		"node_modules/oidc-provider/package.json": "{}",
	} {
		if err := os.WriteFile(filepath.Join(crashing, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}

	cases := []struct {
		name  string
		env   map[string]string
		opts  Options
		wants []string
	}{
		{"node missing", map[string]string{"PATH": t.TempDir()}, Options{}, []string{"node (Node.js 20+) is not on PATH", "make interop-deps"}},
		{"node_modules missing", map[string]string{"SVC_OIDCPROVIDER_DIR": noModules}, Options{}, []string{"has no node_modules/oidc-provider: run `make interop-deps`"}},
		{"server exits", map[string]string{"SVC_OIDCPROVIDER_DIR": crashing}, Options{}, []string{"node exited before listening", "exit status 3", "boom from server.mjs"}},
		{"bad options", nil, Options{SigningAlg: "none"}, []string{`oidcprovider: Options.SigningAlg "none"`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			msg := startFailure(t, tc.opts)
			for _, want := range tc.wants {
				if !strings.Contains(msg, want) {
					t.Errorf("message %q lacks %q", msg, want)
				}
			}
		})
	}
}
