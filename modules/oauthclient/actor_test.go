package oauthclient_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/svckit/svc/modules/oauthclient"
)

func caller(sub string) string {
	return callerJWT(map[string]any{"sub": sub, "exp": time.Now().Add(time.Hour).Unix()})
}

// formWith returns the first token request whose grant is grant.
func (s *tokenServer) formWith(t *testing.T, grant string) map[string][]string {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, f := range s.forms {
		if strings.HasSuffix(f.Get("grant_type"), grant) {
			return f
		}
	}
	t.Fatalf("no %s request among %d", grant, len(s.forms))
	return nil
}

// Issue 22 item 1: an exchange names the service as the actor with its own
// client-credentials token (RFC 8693 §2.1).
func TestActorPatternSendsTheServicesToken(t *testing.T) {
	s := newTokenServer(t)
	c := newClient(t, s, newClock())
	self := newCC(t, c, "self")
	p := newExchange(t, c, "orders", oauthclient.Actor(self))
	alice := caller("alice")
	exchangeFor(t, p, alice)
	f := s.formWith(t, "token-exchange")
	if got := f["actor_token"]; len(got) != 1 || got[0] != mustToken(t, self) {
		t.Fatalf("actor_token = %q, want the self pattern's token %q", got, mustToken(t, self))
	}
	if got := f["actor_token_type"]; len(got) != 1 || got[0] != oauthclient.TokenTypeAccessToken {
		t.Fatalf("actor_token_type = %q", got)
	}
	if got := f["subject_token"]; len(got) != 1 || got[0] != alice {
		t.Fatalf("subject_token = %q", f["subject_token"])
	}
}

// A workload identity file is read again at every exchange: a rotated
// token is sent from the next one on.
func TestActorAssertionFileIsReadAtEveryExchange(t *testing.T) {
	path := filepath.Join(t.TempDir(), "token")
	os.WriteFile(path, []byte("workload-1\n"), 0o600)
	s := newTokenServer(t)
	p := newExchange(t, newClient(t, s, newClock()), "orders", oauthclient.ActorAssertionFile(path))
	exchangeFor(t, p, caller("alice"))
	os.WriteFile(path, []byte("workload-2"), 0o600)
	exchangeFor(t, p, caller("bob"))
	if n := len(s.forms); n != 2 {
		t.Fatalf("%d token requests", n)
	}
	for i, want := range []string{"workload-1", "workload-2"} {
		f := s.form(i)
		if f.Get("actor_token") != want || f.Get("actor_token_type") != oauthclient.TokenTypeJWT {
			t.Fatalf("exchange %d: actor_token %q type %q, want %q jwt", i, f.Get("actor_token"), f.Get("actor_token_type"), want)
		}
	}
}

func TestActorIsRefusedWhereItCannotHold(t *testing.T) {
	s := newTokenServer(t)
	c := newClient(t, s, newClock())
	self := newCC(t, c, "self")
	other := newExchange(t, c, "other")
	missing := filepath.Join(t.TempDir(), "absent")
	file := filepath.Join(t.TempDir(), "token")
	os.WriteFile(file, []byte("workload"), 0o600)
	for _, tc := range []struct {
		name   string
		build  func() error
		wantIn string
	}{
		{"nil actor", func() error {
			_, err := oauthclient.TokenExchange("x", oauthclient.WithoutEnv(), oauthclient.WithClient(c), oauthclient.Actor(nil))
			return err
		}, "client-credentials pattern"},
		{"exchange as actor", func() error {
			_, err := oauthclient.TokenExchange("x", oauthclient.WithoutEnv(), oauthclient.WithClient(c), oauthclient.Actor(other))
			return err
		}, "client-credentials pattern"},
		{"on a client-credentials pattern", func() error {
			_, err := oauthclient.ClientCredentials("x", oauthclient.WithoutEnv(), oauthclient.WithClient(c), oauthclient.Actor(self))
			return err
		}, "not a TokenExchange pattern"},
		{"on an on-behalf-of pattern", func() error {
			_, err := oauthclient.TokenExchangeOnBehalfOf("x", oauthclient.WithoutEnv(), oauthclient.WithClient(c), oauthclient.Actor(self))
			return err
		}, "not a TokenExchange pattern"},
		{"unreadable file", func() error {
			_, err := oauthclient.TokenExchange("x", oauthclient.WithoutEnv(), oauthclient.WithClient(c), oauthclient.ActorAssertionFile(missing))
			return err
		}, "cannot read the actor token file"},
		{"Actor then ActorAssertionFile", func() error {
			_, err := oauthclient.TokenExchange("x", oauthclient.WithoutEnv(), oauthclient.WithClient(c), oauthclient.Actor(self), oauthclient.ActorAssertionFile(file))
			return err
		}, "oauthclient.ActorAssertionFile: set either it or oauthclient.Actor on a pattern, not both"},
		{"ActorAssertionFile then Actor", func() error {
			_, err := oauthclient.TokenExchange("x", oauthclient.WithoutEnv(), oauthclient.WithClient(c), oauthclient.ActorAssertionFile(file), oauthclient.Actor(self))
			return err
		}, "oauthclient.Actor: set either it or oauthclient.ActorAssertionFile on a pattern, not both"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.build()
			var ce *oauthclient.ConfigError
			if !errors.As(err, &ce) || !strings.Contains(err.Error(), tc.wantIn) {
				t.Fatalf("err = %v, want a ConfigError saying %q", err, tc.wantIn)
			}
		})
	}
}

// When the actor's token cannot be had, the exchange fails with its error
// and sends nothing.
func TestActorFailureFailsTheExchange(t *testing.T) {
	s := newTokenServer(t)
	s.then(answer{status: 503})
	c := newClient(t, s, newClock())
	p := newExchange(t, c, "orders", oauthclient.Actor(newCC(t, c, "self")))
	_, err := p.TokenFor(context.Background(), caller("alice"))
	var ue *oauthclient.UnavailableError
	if !errors.As(err, &ue) {
		t.Fatalf("err = %v, want the actor's UnavailableError", err)
	}
	for i := range s.forms {
		if strings.HasSuffix(s.form(i).Get("grant_type"), "token-exchange") {
			t.Fatal("the exchange was sent without its actor")
		}
	}
}

// With one fetch at a time, the exchange's fetch does not hold the turn
// its actor's fetch needs.
func TestActorFetchDoesNotDeadlockUnderMaxConcurrentFetches(t *testing.T) {
	s := newTokenServer(t)
	c := newClient(t, s, newClock(), oauthclient.MaxConcurrentFetches(1))
	p := newExchange(t, c, "orders", oauthclient.Actor(newCC(t, c, "self")))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := p.TokenFor(ctx, caller("alice")); err != nil {
		t.Fatalf("TokenFor: %v (a deadlock ends at the context's deadline)", err)
	}
}

// SVC_TOKENEXCHANGE_<NAME>_ACTOR_ASSERTION_FILE is ActorAssertionFile from
// the environment; a file it cannot read is refused under that variable.
func TestActorAssertionFileFromTheEnvironment(t *testing.T) {
	path := filepath.Join(t.TempDir(), "token")
	os.WriteFile(path, []byte("workload-env"), 0o600)
	t.Setenv("SVC_TOKENEXCHANGE_LEDGER_ACTOR_ASSERTION_FILE", path)
	s := newTokenServer(t)
	p, err := oauthclient.TokenExchange("ledger", oauthclient.WithClient(newClient(t, s, newClock())))
	if err != nil {
		t.Fatal(err)
	}
	exchangeFor(t, p, caller("alice"))
	if f := s.form(0); f.Get("actor_token") != "workload-env" || f.Get("actor_token_type") != oauthclient.TokenTypeJWT {
		t.Fatalf("form %v", f)
	}
	t.Setenv("SVC_TOKENEXCHANGE_LEDGER_ACTOR_ASSERTION_FILE", path+".absent")
	_, err = oauthclient.TokenExchange("ledger")
	var ce *oauthclient.ConfigError
	if !errors.As(err, &ce) || ce.Setting != "SVC_TOKENEXCHANGE_LEDGER_ACTOR_ASSERTION_FILE" {
		t.Fatalf("err = %v", err)
	}
}

// An actor token file that cannot be read at exchange time fails the
// exchange as any failed fetch does: counted, logged, and named after the
// setting that gave the file (the option, or the environment variable).
func TestActorAssertionFileFailureIsCountedAndLogged(t *testing.T) {
	for _, tc := range []struct {
		name, setting string
		build         func(c *oauthclient.Client, path string) (*oauthclient.Pattern, error)
	}{
		{"option", "oauthclient.ActorAssertionFile", func(c *oauthclient.Client, path string) (*oauthclient.Pattern, error) {
			return oauthclient.TokenExchange("ledger", oauthclient.WithoutEnv(), oauthclient.WithClient(c), oauthclient.ActorAssertionFile(path))
		}},
		{"environment", "SVC_TOKENEXCHANGE_LEDGER_ACTOR_ASSERTION_FILE", func(c *oauthclient.Client, path string) (*oauthclient.Pattern, error) {
			t.Setenv("SVC_TOKENEXCHANGE_LEDGER_ACTOR_ASSERTION_FILE", path)
			return oauthclient.TokenExchange("ledger", oauthclient.WithClient(c))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reader, _ := installTelemetry(t)
			core, logs := observer.New(zap.WarnLevel)
			s := newTokenServer(t)
			c := newClient(t, s, newClock(), oauthclient.Logger(zap.New(core)))
			path := filepath.Join(t.TempDir(), "token")
			os.WriteFile(path, []byte("workload"), 0o600)
			p, err := tc.build(c, path)
			if err != nil {
				t.Fatal(err)
			}
			os.Remove(path)
			_, err = p.TokenFor(context.Background(), caller("alice"))
			var ce *oauthclient.ConfigError
			if !errors.As(err, &ce) || ce.Setting != tc.setting || !strings.Contains(ce.Problem, "cannot read the actor token file") {
				t.Fatalf("err = %v, want a ConfigError naming %s", err, tc.setting)
			}
			if s.count.Load() != 0 {
				t.Fatal("the exchange was sent without its actor")
			}
			lines := logs.FilterMessage("svc.oauthclient token fetch failed").All()
			if len(lines) != 1 || lines[0].ContextMap()["svc.oauthclient.pattern"] != "ledger" || lines[0].ContextMap()["error.type"] != "config" {
				t.Fatalf("log lines %v, want one failed fetch of ledger with error.type config", logs.All())
			}
			fetches, _ := fetchPoints(t, reader)
			if len(fetches) != 1 || fetches[0].attrs["svc.outcome"] != "failure" || fetches[0].attrs["error.type"] != "config" ||
				fetches[0].attrs["svc.oauthclient.grant"] != "token_exchange" {
				t.Fatalf("fetch points %v, want one failure of error.type config", fetches)
			}
		})
	}
}

// SVC_TOKENEXCHANGE_<NAME>_ACTOR and _ACTOR_ASSERTION_FILE together are
// refused, naming both, as CLIENT_SECRET and CLIENT_SECRET_FILE are; an
// actor option in code replaces the environment's file.
func TestActorFromTheEnvironmentIsOneActor(t *testing.T) {
	path := filepath.Join(t.TempDir(), "token")
	os.WriteFile(path, []byte("workload-env"), 0o600)
	t.Setenv("SVC_TOKENEXCHANGE_LEDGER_ACTOR_ASSERTION_FILE", path)
	t.Setenv("SVC_TOKENEXCHANGE_LEDGER_ACTOR", "self")
	s := newTokenServer(t)
	c := newClient(t, s, newClock())
	_, err := oauthclient.TokenExchange("ledger", oauthclient.WithClient(c))
	var ce *oauthclient.ConfigError
	if !errors.As(err, &ce) || ce.Setting != "SVC_TOKENEXCHANGE_LEDGER_ACTOR" ||
		ce.Problem != "set either it or SVC_TOKENEXCHANGE_LEDGER_ACTOR_ASSERTION_FILE, not both: an exchange has one actor" {
		t.Fatalf("err = %v, want a ConfigError naming both variables", err)
	}

	t.Setenv("SVC_TOKENEXCHANGE_LEDGER_ACTOR", "")
	self := newCC(t, c, "self")
	p, err := oauthclient.TokenExchange("ledger", oauthclient.WithClient(c), oauthclient.Actor(self))
	if err != nil {
		t.Fatalf("an Actor in code beside the environment's file: %v", err)
	}
	exchangeFor(t, p, caller("alice"))
	if f := s.formWith(t, "token-exchange"); f["actor_token_type"][0] != oauthclient.TokenTypeAccessToken {
		t.Fatalf("actor_token_type = %q, want the code's actor", f["actor_token_type"])
	}
}
