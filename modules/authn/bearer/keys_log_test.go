package bearer

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
)

const (
	notLoaded   = "signing keys not loaded; retrying"
	loadedAgain = "signing keys loaded again"
)

// Regression: issue 14 item 10.
func TestKeyLoadFailuresAreWrittenOncePerKindPerMinute(t *testing.T) {
	core, logs := observer.New(zap.DebugLevel)
	log := zap.New(core)
	t0 := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	docURL := "https://idp.example/.well-known/openid-configuration"
	notFound := &loadError{stage: "discovery", url: docURL, err: &fetchStatusError{URL: docURL, Status: 404}}
	timeout := &loadError{stage: "jwks", url: "https://idp.example/keys", err: context.DeadlineExceeded}
	var l loadLog
	steps := []struct {
		at      time.Duration
		err     error // nil: a success
		written string
		fields  map[string]any
	}{
		{0, notFound, notLoaded, map[string]any{"failure": "discovery status 404", "url": docURL,
			"next_attempt": t0.Add(30 * time.Second), "keys_held": false}},
		{10 * time.Second, notFound, "", nil},
		{20 * time.Second, timeout, notLoaded, map[string]any{"failure": "jwks timeout", "url": "https://idp.example/keys"}},
		{30 * time.Second, notFound, "", nil},
		{61 * time.Second, notFound, notLoaded, map[string]any{"failure": "discovery status 404", "suppressed": int64(2)}},
		{70 * time.Second, nil, loadedAgain, map[string]any{"failed_attempts": int64(5), "failing_for": 70 * time.Second}},
		{80 * time.Second, nil, "", nil},
		// A new outage is written at once: the last one was forgotten.
		{90 * time.Second, notFound, notLoaded, map[string]any{"failure": "discovery status 404"}},
	}
	for i, s := range steps {
		before := logs.Len()
		now := t0.Add(s.at)
		if s.err != nil {
			l.failed(log, s.err, now, 30*time.Second, false)
		} else {
			l.succeeded(log, now)
		}
		got := logs.All()[before:]
		if s.written == "" {
			if len(got) != 0 {
				t.Fatalf("step %d: wrote %v", i, got)
			}
			continue
		}
		if len(got) != 1 || got[0].Message != s.written {
			t.Fatalf("step %d: want one %q line, got %v", i, s.written, got)
		}
		m := got[0].ContextMap()
		for k, want := range s.fields {
			if fmt.Sprint(m[k]) != fmt.Sprint(want) {
				t.Errorf("step %d: %s = %v, want %v (%v)", i, k, m[k], want, m)
			}
		}
		wantLevel := zapcore.ErrorLevel
		if s.err == nil {
			wantLevel = zapcore.InfoLevel
		}
		if got[0].Level != wantLevel {
			t.Errorf("step %d: level %v", i, got[0].Level)
		}
	}
}

// Regression: issue 14 item 10.
func TestKeyLoadFailureLogCarriesNoCredentialsOrQuery(t *testing.T) {
	core, logs := observer.New(zap.DebugLevel)
	secret := "https://user:pa55@idp.example/keys?api_key=s3cret#frag"
	err := &loadError{stage: "jwks", url: secret, err: &url.Error{Op: "Get", URL: secret, Err: fmt.Errorf("connection refused")}}
	var l loadLog
	l.failed(zap.New(core), err, time.Now(), time.Second, true)
	all := logs.All()
	if len(all) != 1 || all[0].Level != zapcore.WarnLevel {
		t.Fatalf("%v", all)
	}
	m := all[0].ContextMap()
	if m["url"] != "https://***@idp.example/keys?***#***" || m["failure"] != "jwks request failed" ||
		!strings.Contains(fmt.Sprint(m["error"]), "connection refused") {
		t.Fatalf("%v", m)
	}
	for _, leak := range []string{"pa55", "s3cret", "user", "frag"} {
		if strings.Contains(fmt.Sprint(m), leak) {
			t.Errorf("%q reached the log: %v", leak, m)
		}
	}
}

// Regression: issue 14 item 10.
func TestKeyLoaderLogsAnOutageOnceAndItsEndOnce(t *testing.T) {
	core, logs := observer.New(zap.InfoLevel)
	srv := newJWKSServer(t, jwksJSON(t, jwkJSON(t, &keys(t).p256.PublicKey, "p256", "")))
	srv.status.Store(http.StatusBadGateway)
	// The pacing clock stands still, so every failure falls in one window
	// however many the real retry timer causes.
	v := remoteVerifier(t, srv.URL, newStepClock(), RetryInterval(5*time.Millisecond), Logger(zap.New(core)))
	deadline := time.Now().Add(10 * time.Second)
	for srv.requests.Load() < 4 {
		if time.Now().After(deadline) {
			t.Fatalf("the loader did not retry: %d requests", srv.requests.Load())
		}
		time.Sleep(time.Millisecond)
	}
	srv.status.Store(http.StatusOK)
	waitKeys(t, v)
	again := waitForLine(t, logs, loadedAgain)
	if n, _ := again.ContextMap()["failed_attempts"].(int64); n < 3 {
		t.Errorf("failed_attempts %v", again.ContextMap())
	}
	failed := logs.FilterMessage(notLoaded).All()
	if len(failed) != 1 || failed[0].Level != zapcore.ErrorLevel || failed[0].ContextMap()["url"] != srv.URL ||
		failed[0].ContextMap()["failure"] != "jwks status 502" {
		t.Fatalf("want one error line naming the URL, got %v", failed)
	}
	if n := logs.FilterMessage(loadedAgain).Len(); n != 1 {
		t.Fatalf("%d recovery lines", n)
	}
}

func waitForLine(t *testing.T, logs *observer.ObservedLogs, msg string) observer.LoggedEntry {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if found := logs.FilterMessage(msg).All(); len(found) > 0 {
			return found[0]
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %q line; logged: %v", msg, logs.All())
		}
		time.Sleep(time.Millisecond)
	}
}

// Regression: issue 14 item 10.
func TestDiscoveryOfAWrongIssuerLogsTheURLAndCause(t *testing.T) {
	p := newProvider(t, "/right", true)
	core, logs := observer.New(zap.InfoLevel)
	wrong := p.URL + "/wrong"
	discoverVerifier(t, wrong, Logger(zap.New(core)))
	line := waitForLine(t, logs, notLoaded)
	m := line.ContextMap()
	if line.Level != zapcore.ErrorLevel || m["failure"] != "discovery status 404" ||
		m["url"] != p.URL+"/.well-known/oauth-authorization-server/wrong" ||
		!strings.Contains(fmt.Sprint(m["error"]), "status 404") {
		t.Fatalf("%v %v", line.Level, m)
	}
}

// Regression: issue 14 item 10.
func TestAppLoggerYieldsToTheLoggerOptionAndToAnOpenVerifier(t *testing.T) {
	mine, _ := observer.New(zap.InfoLevel)
	app, _ := observer.New(zap.InfoLevel)
	srv := newJWKSServer(t, jwksJSON(t))
	v := JWKSURL(srv.URL, testIssuer, testAudience, Logger(zap.New(mine)))
	v.setLogger(zap.New(app))
	if v.keys.(*keyManager).log.Core() != mine {
		t.Fatal("setLogger replaced the Logger option")
	}
	w := JWKSURL(srv.URL, testIssuer, testAudience)
	w.setLogger(zap.New(app))
	if w.keys.(*keyManager).log.Core() != app {
		t.Fatal("setLogger did not give a verifier without a logger the app's")
	}
	openVerifier(t, w)
	w.setLogger(zap.New(mine))
	if w.keys.(*keyManager).log.Core() != app {
		t.Fatal("setLogger changed an open verifier's logger")
	}
}

// The error Ready and Verify return while keys are unavailable carries the
// last fetch's failure, and whoever holds it may log it (fxsvc's readiness
// probe does, raw): the URL's query, which may hold an API key, is
// redacted there as in the loader's own log, while the chain stays.
func TestKeysUnavailableErrorCarriesNoQuery(t *testing.T) {
	k := keys(t)
	srv := newJWKSServer(t, jwksJSON(t, jwkJSON(t, &k.p256.PublicKey, "p256", "")))
	srv.status.Store(http.StatusServiceUnavailable)
	v := remoteVerifier(t, srv.URL+"/jwks?api_key=s3cret", nil, RetryInterval(time.Hour))
	deadline := time.Now().Add(10 * time.Second)
	for err := v.Ready(); !strings.Contains(fmt.Sprint(err), "status 503"); err = v.Ready() {
		if time.Now().After(deadline) {
			t.Fatalf("the failed fetch never reached Ready: %v", err)
		}
		time.Sleep(time.Millisecond)
	}
	_, verr := v.Verify(context.Background(), joseSign(t, jose.ES256, k.p256, "p256", validClaims()))
	for _, err := range []error{v.Ready(), verr} {
		if !errors.Is(err, ErrKeysUnavailable) {
			t.Fatalf("err = %v, want ErrKeysUnavailable", err)
		}
		if strings.Contains(err.Error(), "s3cret") || !strings.Contains(err.Error(), srv.URL+"/jwks?***: status 503") {
			t.Fatalf("error %q: want the URL without its query and the status", err)
		}
		var status *fetchStatusError
		if !errors.As(err, &status) || status.Status != http.StatusServiceUnavailable {
			t.Fatalf("error %v lost its cause", err)
		}
	}
}

// A JWKSURL verifier whose fetch succeeds but brings no usable key says so
// with the URL, which must be redacted in the loader's log and in the
// error Ready returns, as for a failed request.
func TestKeysInvalidJWKSLogCarriesNoQuery(t *testing.T) {
	srv := newJWKSServer(t, []byte(`{"keys":[]}`))
	core, logs := observer.New(zap.DebugLevel)
	v := remoteVerifier(t, srv.URL+"/jwks?api_key=s3cret", nil, RetryInterval(time.Hour), Logger(zap.New(core)))
	deadline := time.Now().Add(10 * time.Second)
	for err := v.Ready(); !strings.Contains(fmt.Sprint(err), "no usable signing key"); err = v.Ready() {
		if time.Now().After(deadline) {
			t.Fatalf("the invalid document never reached Ready: %v", err)
		}
		time.Sleep(time.Millisecond)
	}
	if err := v.Ready(); strings.Contains(err.Error(), "s3cret") || !strings.Contains(err.Error(), srv.URL+"/jwks?***:") {
		t.Fatalf("Ready = %q: want the URL without its query", err)
	}
	failed := logs.FilterMessage(notLoaded).All()
	if len(failed) != 1 {
		t.Fatalf("failure records: %v", logs.All())
	}
	m := failed[0].ContextMap()
	if m["url"] != srv.URL+"/jwks?***" || m["failure"] != "jwks invalid document" {
		t.Fatalf("record %v: want the redacted url and the failure kind", m)
	}
	for _, e := range logs.All() {
		if strings.Contains(fmt.Sprint(e.ContextMap()), "s3cret") {
			t.Fatalf("the query reached the log: %s %v", e.Message, e.ContextMap())
		}
	}
}
