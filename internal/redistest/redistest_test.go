package redistest_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/svckit/svc/internal/redistest"
)

func TestStartStopRestartOnOneAddress(t *testing.T) {
	srv := redistest.Start(t)
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
}

func TestSkipsOrFailsWithoutTheBinary(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	t.Setenv("CI", "")
	// Start skips the subtest: the outer test sees it skipped, not failed.
	ok := t.Run("absent", func(t *testing.T) {
		redistest.Start(t)
		t.Error("Start returned without redis-server on PATH")
	})
	if !ok {
		t.Fatal("without CI, a missing redis-server must skip, not fail")
	}
}

// With CI set a missing binary fails the test: run in a child process so
// that its failure is observed, not inherited.
func TestFailsWithoutTheBinaryUnderCI(t *testing.T) {
	if os.Getenv("REDISTEST_CHILD") == "1" {
		redistest.Start(t)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestFailsWithoutTheBinaryUnderCI$", "-test.v")
	cmd.Env = append(os.Environ(), "REDISTEST_CHILD=1", "CI=true", "PATH="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "--- FAIL") || !strings.Contains(string(out), "CI is set") {
		t.Fatalf("child: %v\n%s", err, out)
	}
}
