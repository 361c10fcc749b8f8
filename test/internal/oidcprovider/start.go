package oidcprovider

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"
)

// startTimeout bounds the wait for node to listen and answer discovery; start-up takes well
// under 2 s, the margin is for loaded CI machines running tests with -race in parallel.
const startTimeout = 30 * time.Second

// Start launches `node server.mjs` on 127.0.0.1 with a free port, waits until its discovery
// document answers, and stops it (kills the process group) in t.Cleanup. The server's output
// goes to the test log only when the test failed. It fails the test, naming the fix, when
// node or node_modules are missing (run `make interop-deps`) or opts are invalid.
func Start(t testing.TB, opts Options) *Provider {
	t.Helper()
	cfg, err := buildConfig(opts)
	if err != nil {
		t.Fatalf("oidcprovider: %v", err)
	}
	if cfg.MTLS != nil {
		cfg.MTLS.addListenerCert(t)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("oidcprovider: node (Node.js 20+) is not on PATH: install Node.js and npm, then run `make interop-deps`")
	}
	dir, err := serverDir()
	if err != nil {
		t.Fatalf("oidcprovider: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "oidc-provider", "package.json")); err != nil {
		t.Fatalf("oidcprovider: %s has no node_modules/oidc-provider: run `make interop-deps`", dir)
	}
	raw, err := json.Marshal(cfg)
	if err != nil {
		t.Fatalf("oidcprovider: %v", err)
	}
	cfgPath := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(cfgPath, raw, 0o600); err != nil {
		t.Fatalf("oidcprovider: %v", err)
	}

	logs := &logBuffer{}
	ready := make(chan string, 1)
	cmd := exec.Command(node, "server.mjs", cfgPath)
	cmd.Dir = dir
	cmd.Stdout = &readyWriter{log: logs, ready: ready}
	cmd.Stderr = logs
	setProcessGroup(cmd)
	// Closing stdin is how the server learns the test is over, even when a kill is missed.
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatalf("oidcprovider: %v", err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("oidcprovider: starting node: %v", err)
	}
	exited := make(chan struct{})
	var waitErr error
	go func() {
		waitErr = cmd.Wait()
		close(exited)
	}()

	transport := &http.Transport{Proxy: nil, MaxIdleConnsPerHost: 16}
	p := &Provider{
		Resource:     cfg.Resource,
		ClientID:     DefaultClientID,
		ClientSecret: DefaultClientSecret,
		tb:           t,
		adminToken:   cfg.AdminToken,
		client:       &http.Client{Transport: transport, Timeout: startTimeout},
	}
	t.Cleanup(func() {
		transport.CloseIdleConnections()
		_ = stdin.Close()
		killProcessGroup(cmd)
		<-exited
		if t.Failed() {
			t.Logf("oidcprovider (%s) output:\n%s", p.Issuer, logs.String())
		}
	})

	deadline := time.NewTimer(startTimeout)
	defer deadline.Stop()
	var line string
	select {
	case line = <-ready:
	case <-exited:
		t.Fatalf("oidcprovider: node exited before listening (%v); output:\n%s", waitErr, logs.String())
	case <-deadline.C:
		t.Fatalf("oidcprovider: node did not listen within %s; output:\n%s", startTimeout, logs.String())
	}
	var hello struct {
		Issuer string `json:"issuer"`
		MTLS   string `json:"mtls"`
	}
	if err := json.Unmarshal([]byte(line), &hello); err != nil || hello.Issuer == "" || (cfg.MTLS != nil) != (hello.MTLS != "") {
		t.Fatalf("oidcprovider: unexpected first line %q from server.mjs: %v", line, err)
	}
	p.Issuer = hello.Issuer
	if cfg.MTLS != nil {
		p.MTLSRoots = cfg.MTLS.roots()
	}
	if err := p.discover(); err != nil {
		t.Fatalf("oidcprovider: %v; output:\n%s", err, logs.String())
	}
	p.ResetCounters(t)
	return p
}

// discover reads the discovery document, checking that it names our issuer.
func (p *Provider) discover() error {
	resp, err := p.client.Get(p.Issuer + "/.well-known/openid-configuration")
	if err != nil {
		return fmt.Errorf("discovery: %w", err)
	}
	defer resp.Body.Close()
	var doc struct {
		Issuer        string `json:"issuer"`
		TokenEndpoint string `json:"token_endpoint"`
		JWKSURI       string `json:"jwks_uri"`
		Introspection string `json:"introspection_endpoint"`
		Aliases       struct {
			Token string `json:"token_endpoint"`
		} `json:"mtls_endpoint_aliases"`
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("discovery answered %s", resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil {
		return fmt.Errorf("discovery: %w", err)
	}
	if doc.Issuer != p.Issuer || doc.TokenEndpoint == "" || doc.JWKSURI == "" {
		return fmt.Errorf("discovery document names issuer %q, token endpoint %q, jwks_uri %q", doc.Issuer, doc.TokenEndpoint, doc.JWKSURI)
	}
	p.TokenEndpoint, p.JWKSURI, p.IntrospectionEndpoint = doc.TokenEndpoint, doc.JWKSURI, doc.Introspection
	p.MTLSTokenEndpoint = doc.Aliases.Token
	if (p.MTLSRoots != nil) != (p.MTLSTokenEndpoint != "") {
		return fmt.Errorf("discovery names mtls_endpoint_aliases.token_endpoint %q", p.MTLSTokenEndpoint)
	}
	return nil
}

// sourceDir is the directory of this file when the test binary was built without -trimpath.
func sourceDir() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok || !filepath.IsAbs(file) {
		return ""
	}
	return filepath.Dir(file)
}

// logBuffer collects the server's stdout and stderr for the failure log.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// readyWriter passes stdout to the log and hands its first line to ready. Only exec's copying
// goroutine writes to it.
type readyWriter struct {
	log     *logBuffer
	ready   chan<- string
	pending []byte
	sent    bool
}

func (w *readyWriter) Write(p []byte) (int, error) {
	if !w.sent {
		w.pending = append(w.pending, p...)
		if i := bytes.IndexByte(w.pending, '\n'); i >= 0 {
			w.ready <- string(w.pending[:i])
			w.sent = true
			w.pending = nil
		}
	}
	return w.log.Write(p)
}
