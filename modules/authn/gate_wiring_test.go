package authn

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
)

// useGlobalLogger makes zap.L() an observer for the test.
func useGlobalLogger(t *testing.T) *observer.ObservedLogs {
	core, logs := observer.New(zap.InfoLevel)
	t.Cleanup(zap.ReplaceGlobals(zap.New(core)))
	return logs
}

func okHandler(w http.ResponseWriter, r *http.Request) {
	p, _ := PrincipalFrom(r.Context())
	_, _ = io.WriteString(w, "hello "+p.Subject)
}

// getBearer GETs url with token until the answer is not the 503 of keys
// still loading, or deadline passes.
func getBearer(t *testing.T, url, token string, deadline time.Time) (*http.Response, string) {
	t.Helper()
	for {
		req, _ := http.NewRequest(http.MethodGet, url, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusServiceUnavailable || time.Now().After(deadline) {
			return resp, string(body)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Regression: issue 14 item 14.
func TestMiddlewareOpensAVerifierNobodyOpened(t *testing.T) {
	logs := useGlobalLogger(t)
	p := newProvider(t, "", true)
	v := Discover(p.issuer, testAudience, Clock(fixedClock()))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := v.Close(ctx); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	srv := httptest.NewServer(Middleware(v)(http.HandlerFunc(okHandler)))
	t.Cleanup(srv.Close)
	resp, body := getBearer(t, srv.URL+"/me", tokenFor(t, p.issuer), time.Now().Add(10*time.Second))
	if resp.StatusCode != http.StatusOK || body != "hello "+validClaims()["sub"].(string) {
		t.Fatalf("%d %s (never opened: %v)", resp.StatusCode, body, v.keys.unavailable())
	}
	if !v.opened() {
		t.Fatal("the verifier is not open")
	}
	// The loader logs to the global logger, the gate's: nothing failed.
	if n := logs.FilterLevelExact(zapcore.ErrorLevel).Len(); n != 0 {
		t.Fatalf("errors logged: %v", logs.All())
	}
}

// A verifier the caller opened is not opened twice (which would fail and
// log a false alarm).
func TestMiddlewareLeavesAnOpenVerifierBe(t *testing.T) {
	logs := useGlobalLogger(t)
	p := newProvider(t, "", true)
	v := discoverVerifier(t, p.issuer) // opened, closed at cleanup
	srv := httptest.NewServer(Middleware(v)(http.HandlerFunc(okHandler)))
	t.Cleanup(srv.Close)
	resp, body := getBearer(t, srv.URL+"/me", tokenFor(t, p.issuer), time.Now().Add(10*time.Second))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	if n := logs.FilterMessage("authn.Middleware: the verifier could not be opened").Len(); n != 0 {
		t.Fatalf("Middleware opened an open verifier: %v", logs.All())
	}
}

// Regression: issue 14 item 14.
func TestMiddlewareSaysOnceWhyAnInvalidVerifierCannotOpen(t *testing.T) {
	logs := useGlobalLogger(t)
	v := Discover("https://idp.example", "   ")
	srv := httptest.NewServer(Middleware(v)(http.HandlerFunc(okHandler)))
	t.Cleanup(srv.Close)
	for range 2 {
		resp, body := getBearer(t, srv.URL+"/me", "x.y.z", time.Now())
		if resp.StatusCode != http.StatusInternalServerError || strings.Contains(body, "audience") ||
			resp.Header.Get("WWW-Authenticate") != "" {
			t.Fatalf("%d %s %v", resp.StatusCode, body, resp.Header)
		}
	}
	opening := logs.FilterMessage("authn.Middleware: the verifier could not be opened").All()
	if len(opening) != 1 || !strings.Contains(fmt.Sprint(opening[0].ContextMap()["error"]), "audience is empty") {
		t.Fatalf("%v", logs.All())
	}
}

// Regression: issue 14 item 14.
func TestTheKeysUnavailable503LogsWhyOncePerMinute(t *testing.T) {
	core, logs := observer.New(zap.InfoLevel)
	// A gate whose verifier nobody opened: the app forgot its lifecycle.
	g, err := New(Discover("https://idp.example", testAudience))
	if err != nil {
		t.Fatal(err)
	}
	g.SetLogger(zap.New(core))
	srv := httptest.NewServer(g.wrap(http.HandlerFunc(okHandler), nil))
	t.Cleanup(srv.Close)
	tok := tokenFor(t, "https://idp.example")
	for range 3 {
		resp, body := getBearer(t, srv.URL+"/me", tok, time.Now())
		if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body, string(KindKeysUnavailable)) ||
			resp.Header.Get("Content-Type") != "application/problem+json" {
			t.Fatalf("%d %s %v", resp.StatusCode, body, resp.Header)
		}
	}
	why := logs.FilterMessage("authn: answering 503, signing keys unavailable").All()
	if len(why) != 1 || !strings.Contains(fmt.Sprint(why[0].ContextMap()["error"]), "was not opened") {
		t.Fatalf("want one line saying why, got %v", logs.All())
	}
	if !errors.Is(g.verifier.(*JWTVerifier).keys.unavailable(), ErrKeysUnavailable) {
		t.Fatal("unavailable() does not wrap ErrKeysUnavailable")
	}
}
