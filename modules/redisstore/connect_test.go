package redisstore_test

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/svckit/svc/internal/redistest"
	"github.com/svckit/svc/modules/redisstore"
	"github.com/svckit/svc/modules/store"
	"github.com/svckit/svc/secret"
)

// roundTrip spends a rate-limit budget of one and finds it spent: two
// scripts that only a working connection answers this way.
func roundTrip(t *testing.T, c *redisstore.Client) {
	t.Helper()
	k, r := store.Key{Space: "rt", ID: t.Name()}, store.Rate{Interval: time.Hour, Burst: 1}
	if res, err := c.Rates().Allow(t.Context(), k, r); err != nil || !res.Allowed {
		t.Fatalf("first request: %+v %v", res, err)
	}
	if res, err := c.Rates().Allow(t.Context(), k, r); err != nil || res.Allowed {
		t.Fatalf("second request allowed: the check did not reach Redis (%+v %v)", res, err)
	}
}

func openCfg(t *testing.T, cfg redisstore.Config, opts ...redisstore.Option) (*redisstore.Client, error) {
	t.Helper()
	if cfg.Timeout == 0 {
		cfg.Timeout = 5 * time.Second // a TLS handshake on a loaded machine (2 s timed out under a load of 12)
	}
	c, err := redisstore.Open(t.Context(), cfg, opts...)
	if err == nil {
		t.Cleanup(func() { _ = c.Close() })
	}
	return c, err
}

func TestTLSVerifiesAgainstTheGivenCA(t *testing.T) { redistest.EachEngine(t, testTLS) }

func testTLS(t *testing.T, engine redistest.Option) {
	srv := redistest.Start(t, engine, redistest.TLS())
	url := secret.URL(srv.URL)
	t.Run("SVC_REDIS_TLS_CA_FILE", func(t *testing.T) {
		t.Setenv("SVC_REDIS_URL", srv.URL)
		t.Setenv("SVC_REDIS_TLS_CA_FILE", srv.CAFile)
		cfg, err := redisstore.FromEnv()
		if err != nil || cfg.TLSCAFile != srv.CAFile {
			t.Fatalf("FromEnv: %+v %v", cfg, err)
		}
		c, err := openCfg(t, cfg)
		if err != nil {
			t.Fatal(err)
		}
		roundTrip(t, c)
	})
	t.Run("Config.TLS", func(t *testing.T) {
		c, err := openCfg(t, redisstore.Config{URL: url, TLS: &tls.Config{RootCAs: srv.CertPool}})
		if err != nil {
			t.Fatal(err)
		}
		roundTrip(t, c)
	})
	t.Run("system roots refuse the test CA", func(t *testing.T) {
		_, err := openCfg(t, redisstore.Config{URL: url})
		if err == nil || !strings.Contains(err.Error(), "SVC_REDIS_URL rediss://127.0.0.1:") ||
			!strings.Contains(err.Error(), "set SVC_REDIS_TLS_CA_FILE") {
			t.Fatalf("err = %v, want it to name SVC_REDIS_URL and SVC_REDIS_TLS_CA_FILE", err)
		}
		t.Logf("refused as it should: %v", err)
	})
	t.Run("another CA is refused", func(t *testing.T) {
		other := redistest.Start(t, engine, redistest.TLS())
		_, err := openCfg(t, redisstore.Config{URL: url, TLSCAFile: other.CAFile})
		if err == nil || !strings.Contains(err.Error(), "SVC_REDIS_TLS_CA_FILE") {
			t.Fatalf("err = %v", err)
		}
	})
}

// Settings that cannot work are refused before any connection, naming
// what to fix.
func TestTLSSettingsRefused(t *testing.T) {
	dir := t.TempDir()
	notPEM := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(notPEM, []byte("not a certificate"), 0o600); err != nil {
		t.Fatal(err)
	}
	withRoots := &tls.Config{RootCAs: x509.NewCertPool()}
	cases := []struct {
		name string
		cfg  redisstore.Config
		want string
	}{
		{"CA file with redis://", redisstore.Config{URL: "redis://:hunter2@127.0.0.1:1/0", TLSCAFile: notPEM},
			"SVC_REDIS_TLS_CA_FILE is set but SVC_REDIS_URL is not rediss://"},
		{"Config.TLS with redis://", redisstore.Config{URL: "redis://:hunter2@127.0.0.1:1/0", TLS: &tls.Config{}},
			"Config.TLS is set but SVC_REDIS_URL is not rediss://"},
		{"CA file missing", redisstore.Config{URL: "rediss://:hunter2@127.0.0.1:1/0", TLSCAFile: filepath.Join(dir, "absent.pem")},
			"SVC_REDIS_TLS_CA_FILE: open " + filepath.Join(dir, "absent.pem")},
		{"CA file without PEM", redisstore.Config{URL: "rediss://:hunter2@127.0.0.1:1/0", TLSCAFile: notPEM},
			"SVC_REDIS_TLS_CA_FILE " + notPEM + " holds no PEM certificate"},
		{"CAs given twice", redisstore.Config{URL: "rediss://:hunter2@127.0.0.1:1/0", TLSCAFile: notPEM, TLS: withRoots},
			"both Config.TLS.RootCAs and SVC_REDIS_TLS_CA_FILE"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := redisstore.New(tc.cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "hunter2") {
				t.Fatalf("err = %v, want %q without the password", err, tc.want)
			}
		})
	}
	t.Run("FromEnv", func(t *testing.T) {
		t.Setenv("SVC_REDIS_URL", "redis://:hunter2@127.0.0.1:1/0")
		t.Setenv("SVC_REDIS_TLS_CA_FILE", notPEM)
		if _, err := redisstore.FromEnv(); err == nil || !strings.Contains(err.Error(), "SVC_REDIS_TLS_CA_FILE is set but SVC_REDIS_URL is not rediss://") {
			t.Fatalf("err = %v", err)
		}
	})
}

// Passwords and ACL users: the right credentials work, wrong or missing
// ones fail Open saying Redis refused authentication, and no password
// reaches the error or the logs.
func TestCredentials(t *testing.T) { redistest.EachEngine(t, testCredentials) }

func testCredentials(t *testing.T, engine redistest.Option) {
	const right, wrong = "right-pw-7f3a", "wrong-pw-91c2"
	for _, tc := range []struct {
		name string
		opt  redistest.Option
		bad  []string // URLs that must be refused
	}{
		{"password", redistest.Password(right), []string{"redis://:" + wrong + "@%s/0", "redis://%s/0"}},
		{"acl user", redistest.User("app", right), []string{"redis://app:" + wrong + "@%s/0", "redis://nobody:" + right + "@%s/0", "redis://:" + right + "@%s/0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := redistest.Start(t, engine, tc.opt)
			core, logs := observer.New(zapcore.DebugLevel)
			log := redisstore.Logger(zap.New(core))
			c, err := openCfg(t, redisstore.Config{URL: secret.URL(srv.URL)}, log)
			if err != nil {
				t.Fatalf("right credentials: %v", err)
			}
			roundTrip(t, c)
			for _, u := range tc.bad {
				url := strings.Replace(u, "%s", srv.Addr, 1)
				_, err := openCfg(t, redisstore.Config{URL: secret.URL(url)}, log)
				if !errors.Is(err, redisstore.ErrAuthRefused) || !strings.Contains(err.Error(), "SVC_REDIS_URL redis://") ||
					!strings.Contains(err.Error(), "refused authentication") {
					t.Fatalf("%s: err = %v, want ErrAuthRefused naming SVC_REDIS_URL", strings.Replace(url, right, "***", 1), err)
				}
				t.Logf("refused as it should: %v", err)
				for _, pw := range []string{right, wrong} {
					if strings.Contains(err.Error(), pw) {
						t.Fatalf("the error repeats a password: %v", err)
					}
				}
			}
			for _, e := range logs.All() {
				line := e.Message
				for k, v := range e.ContextMap() {
					line += " " + k + "=" + fmt.Sprint(v)
				}
				if strings.Contains(line, right) || strings.Contains(line, wrong) {
					t.Fatalf("a log line holds a password: %s", line)
				}
			}
		})
	}
}

// Regression: issue 24 item 9.
// A Redis that answers with an error (a database number beyond the
// server's) is reported with that error, not as a Redis that did not
// answer: the reply is what the operator must fix.
func TestAnErrorReplyIsReportedAsAnAnswer(t *testing.T) {
	srv := redistest.Start(t)
	_, err := openCfg(t, redisstore.Config{URL: secret.URL("redis://" + srv.Addr + "/999")})
	if err == nil {
		t.Fatal("database 999 accepted")
	}
	msg := err.Error()
	if !strings.Contains(msg, "SVC_REDIS_URL redis://") || !strings.Contains(msg, "Redis answered PING with an error") ||
		!strings.Contains(msg, "ERR DB index is out of range") {
		t.Fatalf("err = %v, want the reply, naming SVC_REDIS_URL", err)
	}
	if strings.Contains(msg, "not answer") {
		t.Fatalf("an error reply reported as a silence: %v", err)
	}
}
