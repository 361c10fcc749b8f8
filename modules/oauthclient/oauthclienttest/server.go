// Package oauthclienttest is a test kit for services that call other APIs
// with modules/oauthclient: a loopback authorization server answering the
// client-credentials and token-exchange grants (RFC 6749 §4.4, RFC 8693),
// counting what it was asked, and failing on demand the ways real servers
// fail.
//
//	srv := oauthclienttest.NewServer(t)
//	c, _ := oauthclient.New(srv.ClientOptions()...)
//	srv.Fail(oauthclienttest.Unavailable(30 * time.Second))   // next answer: 503 + Retry-After
//
// It is for tests only and is linked into no binary that does not import it.
//
// What it is for, beside package devissuer: oauthclienttest fails on
// demand (500, 503 and 429 with Retry-After, invalid_client,
// invalid_grant, any refusal with its error_description, a hang) and
// counts requests, to test a client's resilience. devissuer is a whole
// authorization server that issues every token svc's gate checks (DPoP,
// certificate-bound, opaque with introspection, token exchange with an
// actor): use it when the tokens themselves matter, and in a service's
// development mode.
package oauthclienttest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/svckit/svc/modules/oauthclient"
	"github.com/svckit/svc/secret"
)

// The client the server knows; ClientOptions configures a client with them.
const (
	ClientID     = "test-client"
	ClientSecret = "test-secret"
)

// The grant types the server answers.
const (
	grantClientCredentials = "client_credentials"
	grantTokenExchange     = "urn:ietf:params:oauth:grant-type:token-exchange"
)

// Server is a running token server. Build it with NewServer; it stops at
// the test's cleanup. It is safe for concurrent use.
type Server struct {
	// URL is the issuer identifier, http://127.0.0.1:PORT; the token
	// endpoint is URL + "/token".
	URL string

	srv *httptest.Server
	seq atomic.Int64
	// stopped is closed at the test's cleanup: a Hang fault ends there,
	// or httptest's Close would wait for a client that never gives up.
	stopped chan struct{}

	mu       sync.Mutex
	faults   []Fault
	requests []Request
	lifetime time.Duration
	mint     func(Request) string
}

// Request is what the server received on its token endpoint.
type Request struct {
	// Form is the request body (grant_type, scope, audience, subject_token…).
	Form url.Values
	// ClientID is the client that authenticated, by Basic or by the body.
	ClientID string
	// Basic is true when the client authenticated with HTTP Basic.
	Basic bool
}

// NewServer starts a server on loopback that issues opaque tokens
// ("tok-1", "tok-2", …) valid for an hour, and stops it when the test ends.
func NewServer(t testing.TB) *Server {
	t.Helper()
	s := &Server{lifetime: time.Hour, stopped: make(chan struct{})}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", s.metadata)
	mux.HandleFunc("GET /.well-known/openid-configuration", s.metadata)
	mux.HandleFunc("POST /token", s.token)
	s.srv = httptest.NewServer(mux)
	s.URL = s.srv.URL
	t.Cleanup(func() {
		close(s.stopped)
		s.srv.Close()
	})
	return s
}

// ClientOptions configure an oauthclient.Client for this server: its
// issuer (discovered), the test client's ID and secret, plain HTTP on
// loopback, and no environment variables.
func (s *Server) ClientOptions() []oauthclient.Option {
	return []oauthclient.Option{
		oauthclient.Issuer(s.URL),
		oauthclient.ClientID(ClientID),
		oauthclient.ClientSecret(secret.String(ClientSecret)),
		oauthclient.AllowInsecureHTTP(),
		oauthclient.WithoutEnv(),
	}
}

// Lifetime sets the expires_in of the tokens issued from now on.
func (s *Server) Lifetime(d time.Duration) {
	s.mu.Lock()
	s.lifetime = d
	s.mu.Unlock()
}

// IssueWith makes the server issue the tokens mint returns for each
// request instead of opaque ones: e.g. JWTs from an authntest.Issuer, so
// that a service calling itself, or another service under test, accepts
// them.
func (s *Server) IssueWith(mint func(Request) string) {
	s.mu.Lock()
	s.mint = mint
	s.mu.Unlock()
}

// Requests returns a copy of every token request received, in order,
// failed ones included: len(Requests()) counts the fetches.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Fail queues faults: each of the next token requests is answered by the
// next fault, then the server issues tokens again.
func (s *Server) Fail(faults ...Fault) {
	s.mu.Lock()
	s.faults = append(s.faults, faults...)
	s.mu.Unlock()
}

// Fault is one scripted failure of the token endpoint.
type Fault struct {
	status      int
	code        string
	description string
	retryAfter  time.Duration
	hang        bool
}

// ServerError answers 500 server_error.
func ServerError() Fault { return Fault{status: http.StatusInternalServerError, code: "server_error"} }

// Unavailable answers 503 temporarily_unavailable with Retry-After (in
// whole seconds; none when retryAfter is 0).
func Unavailable(retryAfter time.Duration) Fault {
	return Fault{status: http.StatusServiceUnavailable, code: "temporarily_unavailable", retryAfter: retryAfter}
}

// TooManyRequests answers 429 with Retry-After (in whole seconds).
func TooManyRequests(retryAfter time.Duration) Fault {
	return Fault{status: http.StatusTooManyRequests, code: "slow_down", retryAfter: retryAfter}
}

// InvalidClient answers 401 invalid_client, as a server does for a wrong
// secret or an unregistered client.
func InvalidClient() Fault { return Fault{status: http.StatusUnauthorized, code: "invalid_client"} }

// InvalidGrant answers 400 invalid_grant, as a server does for a subject
// token it refuses to exchange.
func InvalidGrant() Fault { return Fault{status: http.StatusBadRequest, code: "invalid_grant"} }

// Refuse answers status with the OAuth error code and error_description
// given (RFC 6749 §5.2), as Keycloak refuses a request it finds lacking:
// Refuse(400, "invalid_request", "DPoP proof is missing"). An empty
// description sends none.
func Refuse(status int, code, description string) Fault {
	return Fault{status: status, code: code, description: description}
}

// Hang never answers: the request waits until the client gives up (its
// timeout, or its context), or until the test ends, when the server drops
// the connection so that its cleanup does not wait for such a client.
func Hang() Fault { return Fault{hang: true} }

func (s *Server) metadata(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{
		"issuer":                                s.URL,
		"token_endpoint":                        s.URL + "/token",
		"grant_types_supported":                 []string{grantClientCredentials, grantTokenExchange},
		"token_endpoint_auth_methods_supported": []string{"client_secret_basic", "client_secret_post"},
	})
}

func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	// Recorded before the body is judged: a request whose body does not
	// parse was still received.
	if err := r.ParseForm(); err != nil {
		s.mu.Lock()
		s.requests = append(s.requests, Request{Form: r.PostForm})
		s.mu.Unlock()
		oauthError(w, http.StatusBadRequest, "invalid_request", 0)
		return
	}
	id, sec, basic := r.BasicAuth()
	if !basic {
		id, sec = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	}
	rq := Request{Form: r.PostForm, ClientID: id, Basic: basic}
	s.mu.Lock()
	s.requests = append(s.requests, rq)
	var fault *Fault
	if len(s.faults) > 0 {
		fault = &s.faults[0]
		s.faults = s.faults[1:]
	}
	lifetime, mint := s.lifetime, s.mint
	s.mu.Unlock()

	switch {
	case fault != nil && fault.hang:
		select {
		case <-r.Context().Done():
		case <-s.stopped:
			// Dropping the connection, not answering: a client sees a
			// transport error, never a token response.
			panic(http.ErrAbortHandler)
		}
		return
	case fault != nil:
		if fault.code == "invalid_client" {
			challengeBasic(w, r)
		}
		if fault.description != "" {
			writeJSON(w, fault.status, map[string]string{"error": fault.code, "error_description": fault.description})
			return
		}
		oauthError(w, fault.status, fault.code, fault.retryAfter)
		return
	case id != ClientID || sec != ClientSecret:
		challengeBasic(w, r)
		oauthError(w, http.StatusUnauthorized, "invalid_client", 0)
		return
	}
	// The grant is judged before a token is made: a refused request
	// takes no number and never reaches IssueWith's mint.
	var issuedType string
	switch r.PostForm.Get("grant_type") {
	case grantClientCredentials:
	case grantTokenExchange:
		if r.PostForm.Get("subject_token") == "" {
			oauthError(w, http.StatusBadRequest, "invalid_request", 0)
			return
		}
		issuedType = "urn:ietf:params:oauth:token-type:access_token"
	default:
		oauthError(w, http.StatusBadRequest, "unsupported_grant_type", 0)
		return
	}
	tok := fmt.Sprintf("tok-%d", s.seq.Add(1))
	if mint != nil {
		tok = mint(rq)
	}
	resp := map[string]any{
		"access_token": tok,
		"token_type":   "Bearer",
		"expires_in":   int(lifetime / time.Second),
	}
	if issuedType != "" {
		resp["issued_token_type"] = issuedType
	}
	if sc := r.PostForm.Get("scope"); sc != "" {
		resp["scope"] = sc
	}
	writeJSON(w, http.StatusOK, resp)
}

// challengeBasic answers a client that authenticated with Basic in kind,
// as RFC 6749 §5.2 requires of a 401 invalid_client.
func challengeBasic(w http.ResponseWriter, r *http.Request) {
	if _, _, basic := r.BasicAuth(); basic {
		w.Header().Set("WWW-Authenticate", `Basic realm="token"`)
	}
}

func oauthError(w http.ResponseWriter, status int, code string, retryAfter time.Duration) {
	if retryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int((retryAfter+time.Second-1)/time.Second)))
	}
	writeJSON(w, status, map[string]string{"error": code})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
