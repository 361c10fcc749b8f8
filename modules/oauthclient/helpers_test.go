package oauthclient_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/svckit/svc/modules/oauthclient"
)

// fakeClock is a clock the test moves by hand.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *fakeClock { return &fakeClock{now: time.Now()} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// answer is one scripted token endpoint answer.
type answer struct {
	status int
	header map[string]string
	body   string
	hangup bool // close the connection without answering
	hang   bool // never answer (until the client gives up)
}

// tokenServer is an in-process authorization server on 127.0.0.1 that the
// tests tell how to answer.
type tokenServer struct {
	*httptest.Server
	t           testing.TB
	authMethods []string
	noMetadata  bool // 404 on both well-known paths
	oidcOnly    bool // 404 on the RFC 8414 path
	issuerName  string

	mu      sync.Mutex
	script  []answer // answers for the next requests, then the default
	forms   []url.Values
	headers []http.Header
	gate    chan struct{} // when set, token answers wait for it to close
	expires int           // expires_in of default answers
	extra   string        // extra JSON members of default answers

	count atomic.Int64 // token requests received
	disco atomic.Int64 // metadata requests received
	seq   atomic.Int64
}

func newTokenServer(t testing.TB) *tokenServer {
	s := &tokenServer{t: t, expires: 3600}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *tokenServer) serve(w http.ResponseWriter, r *http.Request) {
	switch {
	case strings.Contains(r.URL.Path, "/.well-known/"):
		s.disco.Add(1)
		if s.noMetadata || s.oidcOnly && strings.Contains(r.URL.Path, "oauth-authorization-server") {
			http.NotFound(w, r)
			return
		}
		issuer := s.URL
		if s.issuerName != "" {
			issuer = s.issuerName
		}
		doc := map[string]any{"issuer": issuer, "token_endpoint": s.URL + "/token"}
		if s.authMethods != nil {
			doc["token_endpoint_auth_methods_supported"] = s.authMethods
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(doc)
	case r.URL.Path == "/token" && r.Method == http.MethodPost:
		s.token(w, r)
	default:
		http.NotFound(w, r)
	}
}

func (s *tokenServer) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form", 400)
		return
	}
	s.count.Add(1)
	s.mu.Lock()
	s.forms = append(s.forms, r.PostForm)
	s.headers = append(s.headers, r.Header.Clone())
	var a *answer
	if len(s.script) > 0 {
		a = &s.script[0]
		s.script = s.script[1:]
	}
	gate, expires, extra := s.gate, s.expires, s.extra
	s.mu.Unlock()
	if gate != nil {
		select {
		case <-gate:
		case <-r.Context().Done():
			return
		}
	}
	if a == nil {
		n := s.seq.Add(1)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"access_token":"tok-%d","token_type":"Bearer","expires_in":%d%s}`, n, expires, extra)
		return
	}
	switch {
	case a.hangup:
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
		return
	case a.hang:
		<-r.Context().Done()
		return
	}
	for k, v := range a.header {
		w.Header().Set(k, v)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(a.status)
	io.WriteString(w, a.body)
}

// then queues answers for the next token requests.
func (s *tokenServer) then(as ...answer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script = append(s.script, as...)
}

// hold makes token answers wait until the returned func is called.
func (s *tokenServer) hold() (release func()) {
	ch := make(chan struct{})
	s.mu.Lock()
	s.gate = ch
	s.mu.Unlock()
	var once sync.Once
	release = func() {
		once.Do(func() {
			s.mu.Lock()
			s.gate = nil
			s.mu.Unlock()
			close(ch)
		})
	}
	s.t.Cleanup(release)
	return release
}

func (s *tokenServer) form(i int) url.Values {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.forms[i]
}

func (s *tokenServer) header(i int) http.Header {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.headers[i]
}

func noJitter(time.Duration) time.Duration { return 0 }

// testTimeout bounds token requests in tests; see newClient.
const testTimeout = 10 * time.Minute

// newClient builds an opened client against s with a fake clock, no jitter
// and no environment.
func newClient(t testing.TB, s *tokenServer, clk *fakeClock, opts ...oauthclient.Option) *oauthclient.Client {
	t.Helper()
	base := []oauthclient.Option{
		oauthclient.WithoutEnv(),
		oauthclient.Issuer(s.URL),
		oauthclient.ClientID("svc-client"),
		oauthclient.ClientSecret("s3cret-value"),
		oauthclient.Clock(clk.Now),
		oauthclient.WithJitter(noJitter),
		oauthclient.RetryInterval(10 * time.Second),
		// Far above any hold a test puts on the server: a fetch that a
		// loaded machine slows down must not time out on the wall clock
		// (issue 14 item 16). Tests of the timeout set their own.
		oauthclient.Timeout(testTimeout),
	}
	return openClient(t, append(base, opts...)...)
}

// openClient builds and opens a client, closed when the test ends.
func openClient(t testing.TB, opts ...oauthclient.Option) *oauthclient.Client {
	t.Helper()
	c, err := oauthclient.New(opts...)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	if err := c.Open(context.Background()); err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

func newCC(t testing.TB, c *oauthclient.Client, name string, opts ...oauthclient.PatternOption) *oauthclient.Pattern {
	t.Helper()
	p, err := oauthclient.ClientCredentials(name, append([]oauthclient.PatternOption{oauthclient.WithoutEnv(), oauthclient.WithClient(c)}, opts...)...)
	if err != nil {
		t.Fatalf("ClientCredentials: %v", err)
	}
	return p
}

func mustToken(t testing.TB, p *oauthclient.Pattern) string {
	t.Helper()
	tok, err := p.Token(context.Background())
	if err != nil {
		t.Fatalf("Token: %v", err)
	}
	return tok.Value
}

// tokenOrHang calls p.Token with no deadline of its own and returns its
// error, failing the test when the call has not returned after a minute:
// what holds it (what) outlives the client's Timeout.
func tokenOrHang(t testing.TB, p *oauthclient.Pattern, what string) error {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		_, err := p.Token(context.Background())
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(time.Minute):
		t.Fatalf("Token still waits for %s past the client's Timeout", what)
		return nil
	}
}

// eventually polls cond until it holds, failing after a bound generous
// enough for a loaded 2-core machine running the race detector. It waits
// for state, never asserts a duration.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("never happened: %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// callerJWT builds an unsigned JWT-shaped caller token with the given
// claims; the client only reads exp from it.
func callerJWT(claims map[string]any) string {
	enc := func(v any) string {
		b, _ := json.Marshal(v)
		return base64.RawURLEncoding.EncodeToString(b)
	}
	return enc(map[string]string{"alg": "RS256", "typ": "JWT"}) + "." + enc(claims) + ".c2ln"
}

// mustNotLeak fails when an error message holds any of the given strings.
func mustNotLeak(t testing.TB, err error, secrets ...string) {
	t.Helper()
	if err == nil {
		return
	}
	for _, s := range secrets {
		if strings.Contains(err.Error(), s) {
			t.Fatalf("error %q repeats %q", err, s)
		}
	}
}
