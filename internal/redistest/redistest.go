// Package redistest runs a real redis-server for a test: on a free
// loopback port, with its own temporary directory, no persistence, stopped
// at the test's cleanup. Stop and Restart let a test take the server away
// and bring it back on the same address, as an outage would.
//
// When no redis-server binary is found the test is skipped with a message
// saying so, unless the environment variable CI is set: CI must run these
// tests, so there the test fails instead.
//
//	srv := redistest.Start(t)
//	client := redis.NewClient(&redis.Options{Addr: srv.Addr})
package redistest

import (
	"errors"
	"fmt"
	"net"
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

// Server is a running (or stopped) redis-server owned by one test.
type Server struct {
	// Addr is host:port, stable across Restart.
	Addr string
	// URL is redis://Addr/0.
	URL string

	bin string
	dir string
	t   testing.TB

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{}
}

// Binary returns the path of redis-server, or "" when none is on PATH.
func Binary() string {
	p, err := exec.LookPath("redis-server")
	if err != nil {
		return ""
	}
	return p
}

// Start starts a redis-server for t and stops it when t ends. It skips t
// when redis-server is absent (fails it when CI is set) and fails t when
// the server does not answer PING within StartTimeout.
func Start(t testing.TB) *Server {
	t.Helper()
	bin := Binary()
	if bin == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("redistest: redis-server is not on PATH and CI is set: install it (Debian package redis-server; .ci/run does)")
		}
		t.Skip("redistest: redis-server is not on PATH; install it (Debian package redis-server) to run the Redis tests")
	}
	s := &Server{bin: bin, dir: t.TempDir(), t: t}
	var last error
	// The port is free when picked but may be taken before redis binds
	// it; another pick fixes that.
	for range 5 {
		port, err := freePort()
		if err != nil {
			t.Fatalf("redistest: %v", err)
		}
		s.Addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
		s.URL = "redis://" + s.Addr + "/0"
		if last = s.start(); last == nil {
			t.Cleanup(s.Stop)
			return s
		}
	}
	t.Fatalf("redistest: %v", last)
	return nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("pick a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func (s *Server) start() error {
	_, port, _ := net.SplitHostPort(s.Addr)
	cmd := exec.Command(s.bin,
		"--port", port, "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", s.dir,
		"--daemonize", "no", "--loglevel", "warning",
		"--logfile", s.dir+"/redis.log",
	)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", s.bin, err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	if err := waitPing(s.Addr, done); err != nil {
		_ = cmd.Process.Kill()
		<-done
		log, _ := os.ReadFile(s.dir + "/redis.log")
		return fmt.Errorf("redis-server on %s: %w; its log: %s", s.Addr, err, strings.TrimSpace(string(log)))
	}
	s.mu.Lock()
	s.cmd, s.done = cmd, done
	s.mu.Unlock()
	return nil
}

// waitPing polls addr with an inline PING until +PONG, the process ends or
// StartTimeout passes.
func waitPing(addr string, exited <-chan struct{}) error {
	deadline := time.Now().Add(StartTimeout)
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			return errors.New("exited before answering PING")
		default:
		}
		if Ping(addr) == nil {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("no answer to PING within %s", StartTimeout)
}

// Ping sends one PING to addr and reports whether +PONG came back.
func Ping(addr string) error {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	buf := make([]byte, 7)
	n, err := c.Read(buf)
	if err != nil {
		return err
	}
	if string(buf[:n]) != "+PONG\r\n" {
		return fmt.Errorf("PING answered %q", buf[:n])
	}
	return nil
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
// same address (empty, with an empty script cache). It fails the test
// when the new server does not come up.
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
