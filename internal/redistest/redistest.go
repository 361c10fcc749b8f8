// Package redistest runs a real redis-server (or valkey-server) for a
// test: on a free loopback port, with its own temporary directory, no
// persistence, stopped at the test's cleanup. Stop and Restart let a test
// take the server away and bring it back on the same address, as an
// outage would. Options serve TLS only (with a CA made for the test), ask
// for a password or an ACL user, or start Valkey instead of Redis.
//
// When the server's binary is not found the test is skipped with a
// message naming the Debian package, unless the environment variable CI
// is set: CI must run these tests, so there the test fails instead.
//
//	srv := redistest.Start(t)
//	client := redis.NewClient(&redis.Options{Addr: srv.Addr})
//
//	redistest.EachEngine(t, func(t *testing.T, engine redistest.Option) {
//		srv := redistest.Start(t, engine, redistest.TLS())
//		// srv.URL is rediss://127.0.0.1:port/0; trust srv.CertPool or srv.CAFile
//	})
package redistest

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// StartTimeout bounds how long Start and Restart wait for the server to
// answer PING.
const StartTimeout = 10 * time.Second

// Server is a running (or stopped) server owned by one test.
type Server struct {
	// Addr is host:port, stable across Restart.
	Addr string
	// URL is redis://Addr/0, or rediss:// with TLS, carrying the
	// password (and user) the server asks for.
	URL string
	// Engine is "redis" or "valkey".
	Engine string
	// CAFile is the PEM file of the CA that signed the server's
	// certificate, and CertPool holds that CA; both are empty without TLS.
	CAFile   string
	CertPool *x509.CertPool
	// User and Password are the credentials the server asks for (User
	// is empty for a plain --requirepass password).
	User, Password string

	cfg  options
	bin  string
	dir  string
	cert certs
	t    testing.TB
	// extra are further arguments (a replica's, a cluster node's);
	// sentinel, when set, is the configuration file of a sentinel.
	extra    []string
	sentinel string

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{}
}

// Option configures [Start].
type Option func(*options)

type options struct {
	engine         engine
	tls            bool
	user, password string
	extra          []string // further arguments (a replica's)
	noReplicas     bool     // StartCluster: primaries only
}

type engine struct{ name, binary, pkg string }

var (
	redisEngine  = engine{"redis", "redis-server", "redis-server"}
	valkeyEngine = engine{"valkey", "valkey-server", "valkey-server, from bookworm-backports"}
)

// Redis starts redis-server (the default).
func Redis() Option { return func(o *options) { o.engine = redisEngine } }

// Valkey starts valkey-server instead of redis-server.
func Valkey() Option { return func(o *options) { o.engine = valkeyEngine } }

// TLS serves TLS only (no plain port), with a certificate for 127.0.0.1
// signed by a CA made for the test (Server.CAFile, Server.CertPool).
// Clients are not asked for a certificate.
func TLS() Option { return func(o *options) { o.tls = true } }

// NoReplicas makes [StartCluster] start three primaries and no replica:
// for benchmarks on one machine, where a replica competes with its
// primary for the same cores, as it does not in production.
func NoReplicas() Option { return func(o *options) { o.noReplicas = true } }

// Password asks every client for password (--requirepass).
func Password(password string) Option {
	return func(o *options) { o.user, o.password = "", password }
}

// User creates the ACL user name with password and every permission, and
// disables the default user, so that only name can log in.
func User(name, password string) Option {
	return func(o *options) { o.user, o.password = name, password }
}

// EachEngine runs f as a subtest per server the stores support, "redis"
// and "valkey", passing the option that starts it. Each subtest skips (or
// under CI fails) on its own when its binary is absent.
func EachEngine(t *testing.T, f func(t *testing.T, engine Option)) {
	t.Helper()
	for _, e := range []engine{redisEngine, valkeyEngine} {
		t.Run(e.name, func(t *testing.T) { f(t, func(o *options) { o.engine = e }) })
	}
}

// Binary returns the path of redis-server, or "" when none is on PATH.
func Binary() string { return lookPath(redisEngine.binary) }

func lookPath(name string) string {
	p, err := exec.LookPath(name)
	if err != nil {
		return ""
	}
	return p
}

// Start starts a server for t and stops it when t ends. It skips t when
// the binary is absent (fails it when CI is set) and fails t when the
// server does not answer PING within StartTimeout.
func Start(t testing.TB, opts ...Option) *Server {
	t.Helper()
	return startWith(t, nil, opts...)
}

// startWith is Start with prepare called on the server before each try
// to start it, once its address is picked (to add arguments that name
// its port, or write its configuration file).
func startWith(t testing.TB, prepare func(*Server) error, opts ...Option) *Server {
	t.Helper()
	cfg := options{engine: redisEngine}
	for _, o := range opts {
		o(&cfg)
	}
	e := cfg.engine
	bin := lookPath(e.binary)
	if bin == "" {
		if os.Getenv("CI") != "" {
			t.Fatalf("redistest: %s is not on PATH and CI is set: install it (Debian package %s; .ci/run does)", e.binary, e.pkg)
		}
		t.Skipf("redistest: %s is not on PATH; install it (Debian package %s) to run the %s tests", e.binary, e.pkg, e.name)
	}
	s := &Server{Engine: e.name, User: cfg.user, Password: cfg.password, cfg: cfg, bin: bin, dir: t.TempDir(), t: t}
	if cfg.tls {
		c := newCerts(t, s.dir)
		s.cert, s.CAFile, s.CertPool = c, c.caFile, c.pool
	}
	var last error
	// The port is free when picked but may be taken before the server
	// binds it; another pick fixes that.
	for range 5 {
		port, err := freePort()
		if err != nil {
			t.Fatalf("redistest: %v", err)
		}
		s.Addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
		s.URL = s.url()
		if prepare != nil {
			if last = prepare(s); last != nil {
				continue
			}
		}
		if last = s.start(); last == nil {
			t.Cleanup(s.Stop)
			return s
		}
	}
	t.Fatalf("redistest: %v", last)
	return nil
}

func (s *Server) url() string {
	u := url.URL{Scheme: "redis", Host: s.Addr, Path: "/0"}
	if s.cfg.tls {
		u.Scheme = "rediss"
	}
	if s.Password != "" {
		u.User = url.UserPassword(s.User, s.Password)
	}
	return u.String()
}

// TLSConfig returns a client configuration that trusts the server's CA,
// or nil without TLS.
func (s *Server) TLSConfig() *tls.Config {
	if !s.cfg.tls {
		return nil
	}
	return &tls.Config{RootCAs: s.CertPool, MinVersion: tls.VersionTLS12}
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("pick a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func (s *Server) args() []string {
	_, port, _ := net.SplitHostPort(s.Addr)
	if s.sentinel != "" {
		return append([]string{s.sentinel, "--sentinel", "--port", port, "--bind", "127.0.0.1",
			"--dir", s.dir, "--daemonize", "no", "--loglevel", "warning", "--logfile", s.dir + "/server.log"}, s.extra...)
	}
	args := []string{"--port", port}
	if s.cfg.tls {
		args = []string{"--port", "0", "--tls-port", port,
			"--tls-cert-file", s.cert.certFile, "--tls-key-file", s.cert.keyFile,
			"--tls-ca-cert-file", s.cert.caFile, "--tls-auth-clients", "no"}
	}
	args = append(args, "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", s.dir,
		"--daemonize", "no", "--loglevel", "warning",
		"--logfile", s.dir+"/server.log")
	switch {
	case s.User != "":
		args = append(args, "--user", s.User, "on", ">"+s.Password, "~*", "&*", "+@all",
			"--user", "default", "off")
	case s.Password != "":
		args = append(args, "--requirepass", s.Password)
	}
	args = append(args, s.cfg.extra...)
	return append(args, s.extra...)
}

func (s *Server) start() error {
	cmd := exec.Command(s.bin, s.args()...)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", s.bin, err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	if err := s.waitPing(done); err != nil {
		_ = cmd.Process.Kill()
		<-done
		log, _ := os.ReadFile(s.dir + "/server.log")
		return fmt.Errorf("%s on %s: %w; its log: %s", s.bin, s.Addr, err, strings.TrimSpace(string(log)))
	}
	s.mu.Lock()
	s.cmd, s.done = cmd, done
	s.mu.Unlock()
	return nil
}

// waitPing polls the server with PING until +PONG, the process ends or
// StartTimeout passes.
func (s *Server) waitPing(exited <-chan struct{}) error {
	deadline := time.Now().Add(StartTimeout)
	var err error
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			return fmt.Errorf("exited before answering PING (last: %v)", err)
		default:
		}
		if err = s.Ping(); err == nil {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("no answer to PING within %s: %v", StartTimeout, err)
}

// Stop kills the server and waits until it exited; its data is lost, as
// in a crash. Stopping a stopped server does nothing.
func (s *Server) Stop() {
	s.mu.Lock()
	cmd, done := s.cmd, s.done
	s.cmd, s.done = nil, nil
	s.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = cmd.Process.Kill()
	<-done
}

// Restart stops the server when it runs and starts a fresh one on the
// same address with the same options (empty, with an empty script
// cache). It fails the test when the new server does not come up.
func (s *Server) Restart() {
	s.t.Helper()
	s.Stop()
	var err error
	// The old socket may linger a moment; retry on the same port.
	for range 20 {
		if err = s.start(); err == nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	s.t.Fatalf("redistest: restart: %v", err)
}
