package redistest_test

import (
	"crypto/tls"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/svckit/svc/internal/redistest"
)

func TestStartStopRestartOnOneAddress(t *testing.T) {
	redistest.EachEngine(t, func(t *testing.T, engine redistest.Option) {
		srv := redistest.Start(t, engine)
		if !strings.HasPrefix(srv.Addr, "127.0.0.1:") || srv.URL != "redis://"+srv.Addr+"/0" {
			t.Fatalf("Addr %q URL %q", srv.Addr, srv.URL)
		}
		if err := redistest.Ping(srv.Addr); err != nil {
			t.Fatalf("started: %v", err)
		}
		srv.Stop()
		if err := redistest.Ping(srv.Addr); err == nil {
			t.Fatal("stopped, yet PING answered")
		}
		srv.Stop() // a second Stop does nothing
		srv.Restart()
		if err := redistest.Ping(srv.Addr); err != nil {
			t.Fatalf("restarted on the same address: %v", err)
		}
	})
}

func TestEachEngineStartsItsOwnBinary(t *testing.T) {
	redistest.EachEngine(t, func(t *testing.T, engine redistest.Option) {
		srv := redistest.Start(t, engine)
		out, err := exec.Command("redis-cli", "-p", strings.TrimPrefix(srv.Addr, "127.0.0.1:"), "INFO", "server").Output()
		if err != nil {
			t.Skipf("redis-cli: %v", err)
		}
		// Valkey answers INFO with server_name:valkey; Redis has no such line.
		if valkey := strings.Contains(string(out), "server_name:valkey"); valkey != (srv.Engine == "valkey") {
			t.Fatalf("engine %s, but INFO says:\n%s", srv.Engine, out)
		}
	})
}

// TLS only: a client trusting the test's CA gets PONG, a plain one (or
// one trusting only the system roots) gets nothing; Restart keeps TLS.
func TestTLSOnly(t *testing.T) {
	srv := redistest.Start(t, redistest.TLS())
	if !strings.HasPrefix(srv.URL, "rediss://127.0.0.1:") || srv.CAFile == "" || srv.CertPool == nil {
		t.Fatalf("URL %q CAFile %q", srv.URL, srv.CAFile)
	}
	if err := srv.Ping(); err != nil {
		t.Fatalf("TLS PING: %v", err)
	}
	if err := redistest.Ping(srv.Addr); err == nil {
		t.Fatal("a plain PING was answered on the TLS-only port")
	}
	if c, err := tls.Dial("tcp", srv.Addr, &tls.Config{MinVersion: tls.VersionTLS12}); err == nil {
		c.Close()
		t.Fatal("the test's certificate verified against the system roots")
	}
	srv.Restart()
	if err := srv.Ping(); err != nil {
		t.Fatalf("TLS PING after Restart: %v", err)
	}
}

func TestCredentials(t *testing.T) {
	for _, tc := range []struct {
		name    string
		opt     redistest.Option
		wantURL string
	}{
		{"password", redistest.Password("s3cret"), "redis://:s3cret@"},
		{"acl user", redistest.User("app", "s3cret"), "redis://app:s3cret@"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := redistest.Start(t, tc.opt)
			if !strings.HasPrefix(srv.URL, tc.wantURL+srv.Addr) {
				t.Fatalf("URL %q, want %s…", srv.URL, tc.wantURL)
			}
			if err := srv.Ping(); err != nil {
				t.Fatalf("PING with the credentials: %v", err)
			}
			// Without credentials (as the default user) the server refuses.
			if err := redistest.Ping(srv.Addr); err == nil || !strings.Contains(err.Error(), "NOAUTH") {
				t.Fatalf("PING without credentials: %v, want NOAUTH", err)
			}
			if err := srv.PingAs(srv.User, "wrong"); err == nil || !strings.Contains(err.Error(), "WRONGPASS") {
				t.Fatalf("PING with a wrong password: %v, want WRONGPASS", err)
			}
		})
	}
}

// A missing binary skips the test naming the Debian package, or fails it
// when CI is set; each engine on its own. Run in a child process so that
// its skip or failure is observed, not inherited.
func TestSkipsOrFailsWithoutTheBinary(t *testing.T) {
	if e := os.Getenv("REDISTEST_CHILD"); e != "" {
		opt := redistest.Redis()
		if e == "valkey" {
			opt = redistest.Valkey()
		}
		redistest.Start(t, opt)
		t.Fatal("Start returned without its binary on PATH")
	}
	for _, tc := range []struct {
		engine, ci, want, msg string
	}{
		{"redis", "", "--- SKIP", "redis-server is not on PATH; install it (Debian package redis-server)"},
		{"redis", "true", "--- FAIL", "redis-server is not on PATH and CI is set"},
		{"valkey", "", "--- SKIP", "valkey-server is not on PATH; install it (Debian package valkey-server, from bookworm-backports)"},
		{"valkey", "true", "--- FAIL", "valkey-server is not on PATH and CI is set"},
	} {
		t.Run(tc.engine+" CI="+tc.ci, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestSkipsOrFailsWithoutTheBinary$", "-test.v")
			cmd.Env = append(os.Environ(), "REDISTEST_CHILD="+tc.engine, "CI="+tc.ci, "PATH="+t.TempDir())
			out, _ := cmd.CombinedOutput()
			if !strings.Contains(string(out), tc.want) || !strings.Contains(string(out), tc.msg) {
				t.Fatalf("child output lacks %q and %q:\n%s", tc.want, tc.msg, out)
			}
		})
	}
}

func TestStartSentinel(t *testing.T) {
	if testing.Short() {
		t.Skip("a Sentinel set is seven processes")
	}
	set := redistest.StartSentinel(t)
	old, err := set.PrimaryAddr(t.Context())
	if err != nil || old != set.Data[0].Addr {
		t.Fatalf("primary = %q, %v; want %s", old, err, set.Data[0].Addr)
	}
	set.KillPrimary(t)
	set.WaitPromoted(t, old)
}

func TestStartCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("a Cluster is six processes")
	}
	c := redistest.StartCluster(t)
	p := c.PrimaryOf(t, "k")
	p.Stop()
	c.WaitOK(t, "k", p.Addr)
}

func TestStartClusterWithoutReplicas(t *testing.T) {
	if testing.Short() {
		t.Skip("a Cluster is three processes")
	}
	c := redistest.StartCluster(t, redistest.NoReplicas())
	if len(c.Nodes) != 3 {
		t.Fatalf("%d nodes, want 3 primaries", len(c.Nodes))
	}
	seen := map[string]bool{}
	for _, k := range []string{"a", "b", "c", "d", "e", "f", "g", "h"} {
		seen[c.PrimaryOf(t, k).Addr] = true
	}
	for _, n := range c.Nodes {
		if !seen[n.Addr] {
			t.Errorf("node %s is the primary of none of eight keys: is it a replica?", n.Addr)
		}
	}
}
