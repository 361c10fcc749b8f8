package oauthclient_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/svckit/svc/modules/oauthclient"
)

const invalidToken = `Bearer realm="api", error="invalid_token", error_description="expired"`

// apiServer is the downstream API. refuse says which tokens it answers 401
// invalid_token to.
type apiServer struct {
	*httptest.Server
	mu     sync.Mutex
	refuse func(token string) bool
	seen   []string // Authorization headers
	bodies []string
}

func newAPI(t testing.TB, refuse func(string) bool) *apiServer {
	a := &apiServer{refuse: refuse}
	a.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		auth := r.Header.Get("Authorization")
		a.mu.Lock()
		a.seen = append(a.seen, auth)
		a.bodies = append(a.bodies, string(body))
		refuse := a.refuse
		a.mu.Unlock()
		if refuse != nil && refuse(strings.TrimPrefix(auth, "Bearer ")) {
			w.Header().Set("WWW-Authenticate", invalidToken)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		io.WriteString(w, "ok "+auth)
	}))
	t.Cleanup(a.Close)
	return a
}

func (a *apiServer) calls() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.seen...)
}

func do(t testing.TB, hc *http.Client, method, url string, body io.Reader) *http.Response {
	t.Helper()
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

func TestTransportAttachesTheTokenWithoutTouchingTheRequest(t *testing.T) {
	s := newTokenServer(t)
	api := newAPI(t, nil)
	p := newCC(t, newClient(t, s, newClock()), "api")
	req, _ := http.NewRequest(http.MethodGet, api.URL, nil)
	req.Header.Set("Authorization", "Basic old")
	req.Header.Set("X-Keep", "1")
	resp, err := p.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := api.calls()[0]; got != "Bearer tok-1" {
		t.Fatalf("Authorization = %q", got)
	}
	if req.Header.Get("Authorization") != "Basic old" {
		t.Fatal("the caller's request was modified")
	}
	if first, second := p.Client(), p.Client(); first != second {
		t.Fatal("Client returns a new client each time")
	}
}

// State table: 401 invalid_token, first refusal within retry_interval →
// cached token dropped, request repeated once.
func TestFirstInvalidTokenRefusalDropsAndRepeats(t *testing.T) {
	s := newTokenServer(t)
	api := newAPI(t, func(tok string) bool { return tok == "tok-1" })
	p := newCC(t, newClient(t, s, newClock()), "api")
	mustToken(t, p)
	resp := do(t, p.Client(), http.MethodGet, api.URL, nil)
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	if got := api.calls(); len(got) != 2 || got[0] != "Bearer tok-1" || got[1] != "Bearer tok-2" {
		t.Fatalf("API saw %v", got)
	}
	if s.count.Load() != 2 {
		t.Fatalf("token requests %d", s.count.Load())
	}
}

// State table: further refusal within retry_interval → token kept, the 401
// is returned.
func TestFurtherRefusalWithinIntervalKeepsTokenAndReturns401(t *testing.T) {
	s := newTokenServer(t)
	api := newAPI(t, func(string) bool { return true })
	clk := newClock()
	p := newCC(t, newClient(t, s, clk), "api")

	resp := do(t, p.Client(), http.MethodGet, api.URL, nil) // tok-1 refused, dropped, repeated with tok-2, refused
	if resp.StatusCode != 401 || resp.Header.Get("WWW-Authenticate") != invalidToken {
		t.Fatalf("status %d", resp.StatusCode)
	}
	clk.Advance(5 * time.Second)
	resp = do(t, p.Client(), http.MethodGet, api.URL, nil) // tok-2 refused within the interval: kept
	if resp.StatusCode != 401 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	if got := api.calls(); len(got) != 3 || got[2] != "Bearer tok-2" {
		t.Fatalf("API saw %v", got)
	}
	if s.count.Load() != 2 || mustToken(t, p) != "tok-2" {
		t.Fatalf("token requests %d: the token was not kept", s.count.Load())
	}
	clk.Advance(5 * time.Second) // a full interval since the drop
	do(t, p.Client(), http.MethodGet, api.URL, nil)
	if s.count.Load() != 3 {
		t.Fatalf("token requests %d: no drop after the interval", s.count.Load())
	}
}

func TestRepeatAnyMethodOnlyWithReplayableBody(t *testing.T) {
	cases := []struct {
		method string
		body   func() io.Reader
		repeat bool
	}{
		{http.MethodGet, nil, true},
		{http.MethodHead, nil, true},
		{http.MethodOptions, nil, true},
		{http.MethodDelete, nil, true},
		{http.MethodPut, func() io.Reader { return strings.NewReader("payload") }, true}, // GetBody set
		{http.MethodPut, func() io.Reader { return io.MultiReader(strings.NewReader("payload")) }, false},
		{http.MethodPost, func() io.Reader { return strings.NewReader("payload") }, true},
		{http.MethodPatch, func() io.Reader { return bytes.NewReader([]byte("payload")) }, true},
		{http.MethodPost, func() io.Reader { return io.MultiReader(strings.NewReader("payload")) }, false},
		{"PROPFIND", nil, true},
	}
	for _, tc := range cases {
		name := tc.method
		if tc.body != nil {
			name += " " + map[bool]string{true: "replayable", false: "one-shot"}[tc.repeat]
		}
		t.Run(name, func(t *testing.T) {
			s := newTokenServer(t)
			api := newAPI(t, func(tok string) bool { return tok == "tok-1" })
			p := newCC(t, newClient(t, s, newClock()), "api")
			var body io.Reader
			if tc.body != nil {
				body = tc.body()
			}
			resp := do(t, p.Client(), tc.method, api.URL, body)
			calls := api.calls()
			if tc.repeat {
				if resp.StatusCode != 200 || len(calls) != 2 {
					t.Fatalf("status %d, API calls %v", resp.StatusCode, calls)
				}
				if tc.body != nil && api.bodies[1] != "payload" {
					t.Fatalf("repeated body %q", api.bodies[1])
				}
			} else if resp.StatusCode != 401 || len(calls) != 1 {
				t.Fatalf("status %d, API calls %v: want the 401 returned", resp.StatusCode, calls)
			}
			// Either way the refused token was dropped.
			if got := mustToken(t, p); got != "tok-2" {
				t.Fatalf("token after the refusal %q", got)
			}
		})
	}
}

// A POST refused again with the fresh token is not sent a third time: the
// second 401 goes back to the caller.
func TestRepeatedPostNeverSentThreeTimes(t *testing.T) {
	s := newTokenServer(t)
	api := newAPI(t, func(string) bool { return true })
	p := newCC(t, newClient(t, s, newClock()), "api")
	resp := do(t, p.Client(), http.MethodPost, api.URL, strings.NewReader("payload"))
	calls := api.calls()
	if resp.StatusCode != 401 || len(calls) != 2 || calls[0] != "Bearer tok-1" || calls[1] != "Bearer tok-2" {
		t.Fatalf("status %d, API calls %v: want two sends, the second with a fresh token", resp.StatusCode, calls)
	}
	if api.bodies[0] != "payload" || api.bodies[1] != "payload" {
		t.Fatalf("bodies %q", api.bodies)
	}
}

func TestOtherRefusalsDoNotDropTheToken(t *testing.T) {
	for _, challenge := range []string{
		`Bearer realm="api"`,
		`Bearer error="insufficient_scope"`,
		`Basic realm="invalid_token"`,
		`Basic error="invalid_token"`,
		``,
	} {
		s := newTokenServer(t)
		api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if challenge != "" {
				w.Header().Set("WWW-Authenticate", challenge)
			}
			w.WriteHeader(401)
		}))
		p := newCC(t, newClient(t, s, newClock()), "api")
		resp := do(t, p.Client(), http.MethodGet, api.URL, nil)
		api.Close()
		if resp.StatusCode != 401 || s.count.Load() != 1 {
			t.Fatalf("challenge %q: status %d, token requests %d", challenge, resp.StatusCode, s.count.Load())
		}
	}
}

// State table: refusals arriving together share one fetch.
func TestRefusalsArrivingTogetherShareOneFetch(t *testing.T) {
	const n = 50
	s := newTokenServer(t)
	var arrived atomic.Int64
	all := make(chan struct{})
	api := newAPI(t, func(tok string) bool {
		if tok != "tok-1" {
			return false
		}
		if arrived.Add(1) == n {
			close(all)
		}
		<-all // every request holds tok-1 before any refusal is answered
		return true
	})
	p := newCC(t, newClient(t, s, newClock()), "api")
	mustToken(t, p)
	hc := &http.Client{Transport: p.Transport(&http.Transport{MaxConnsPerHost: n})}
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if resp := do(t, hc, http.MethodGet, api.URL, nil); resp.StatusCode != 200 {
				t.Errorf("status %d", resp.StatusCode)
			}
		}()
	}
	wg.Wait()
	if got := s.count.Load(); got != 2 {
		t.Fatalf("token requests = %d, want 2 (one shared fetch after the refusals)", got)
	}
}

func TestTransportErrors(t *testing.T) {
	s := newTokenServer(t)
	s.then(answer{status: 500})
	c := newClient(t, s, newClock())
	cc := newCC(t, c, "api")
	ex, _ := oauthclient.TokenExchange("ex", oauthclient.WithoutEnv(), oauthclient.WithClient(c))
	api := newAPI(t, nil)

	closed := &closeRecorder{Reader: strings.NewReader("x")}
	req, _ := http.NewRequest(http.MethodPost, api.URL, closed)
	_, err := cc.Client().Do(req)
	var ue *oauthclient.UnavailableError
	if !errors.As(err, &ue) {
		t.Fatalf("err = %v", err)
	}
	if !closed.closed {
		t.Fatal("the request body was not closed on error")
	}
	for _, tc := range []struct {
		rt   http.RoundTripper
		want error
	}{
		{ex.Transport(nil), oauthclient.ErrCallerTokenRequired},
		{cc.TransportFor("caller", nil), oauthclient.ErrNotExchange},
		{ex.TransportFor("", nil), oauthclient.ErrEmptyCallerToken},
	} {
		req, _ := http.NewRequest(http.MethodGet, api.URL, nil)
		if _, err := tc.rt.RoundTrip(req); !errors.Is(err, tc.want) {
			t.Errorf("err = %v, want %v", err, tc.want)
		}
	}
	if len(api.calls()) != 0 {
		t.Fatal("a request without a token reached the API")
	}
	if _, err := ex.Token(context.Background()); !errors.Is(err, oauthclient.ErrCallerTokenRequired) {
		t.Errorf("Token on an exchange pattern: %v", err)
	}
	if _, err := cc.TokenFor(context.Background(), "x"); !errors.Is(err, oauthclient.ErrNotExchange) {
		t.Errorf("TokenFor on a client-credentials pattern: %v", err)
	}
}

type closeRecorder struct {
	io.Reader
	closed bool
}

func (c *closeRecorder) Close() error { c.closed = true; return nil }

func TestInvalidTokenChallengeParsing(t *testing.T) {
	cases := map[string]bool{
		`Bearer error="invalid_token"`:                                   true,
		`Bearer error=invalid_token`:                                     true,
		`bearer realm="x", error="invalid_token", error_description="e"`: true,
		`Basic realm="x", Bearer error="invalid_token"`:                  true,
		`Bearer realm="a,error=\"invalid_token\""`:                       false,
		`Bearer error="insufficient_scope"`:                              false,
		`Basic error="invalid_token"`:                                    false,
		`Bearer`:                                                         false,
		`Negotiate abc==, Bearer error="invalid_token"`:                  true,
		`Bearer error="invalid_token`:                                    true,
		`=,,==""\`:                                                       false,
	}
	for v, want := range cases {
		h := http.Header{"Www-Authenticate": {v}}
		if got := oauthclient.InvalidTokenChallenge(h); got != want {
			t.Errorf("%s: got %v, want %v", v, got, want)
		}
	}
}

// A 401 invalid_token whose refetch hands back the same token (servers
// that reissue the token they issued last until it expires): the token
// is not sent again, so the API sees one request and the caller gets its
// 401.
func TestInvalidTokenRefetchOfTheSameTokenIsNotSentAgain(t *testing.T) {
	s := newTokenServer(t)
	same := answer{status: 200, body: `{"access_token":"tok-same","token_type":"Bearer","expires_in":3600}`}
	s.then(same, same)
	api := newAPI(t, func(string) bool { return true })
	p := newCC(t, newClient(t, s, newClock()), "api")
	resp := do(t, p.Client(), http.MethodGet, api.URL, nil)
	if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") != invalidToken {
		t.Fatalf("status %d, WWW-Authenticate %q: want the API's 401", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
	if got := api.calls(); len(got) != 1 || got[0] != "Bearer tok-same" {
		t.Fatalf("API saw %v, want one request", got)
	}
	if s.count.Load() != 2 {
		t.Fatalf("%d token requests, want 2 (the first, and the refetch after the drop)", s.count.Load())
	}
}
