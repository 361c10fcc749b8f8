package oauthclient_test

import (
	"context"
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/svckit/svc/internal/testcert"
	"github.com/svckit/svc/modules/oauthclient"
)

// clientCertFiles writes a fresh self-signed client certificate and its
// key to dir and returns the paths and the certificate's x5t#S256.
func clientCertFiles(t testing.TB, dir, name string) (certFile, keyFile, thumb string) {
	t.Helper()
	c := testcert.SelfSigned(t, testcert.Name("svc-client "+name))
	certFile, keyFile = filepath.Join(dir, "client.crt"), filepath.Join(dir, "client.key")
	testcert.Write(t, c, certFile, keyFile)
	return certFile, keyFile, testcert.Thumbprint(c.Certificate[0])
}

// peerThumb is the x5t#S256 of the certificate a request's client
// presented, "" for none.
func peerThumb(r *http.Request) string {
	if r.TLS == nil || len(r.TLS.PeerCertificates) == 0 {
		return ""
	}
	return testcert.Thumbprint(r.TLS.PeerCertificates[0].Raw)
}

// mtlsAS is an authorization server and an API on one TLS listener on
// 127.0.0.1 that request (not verify) client certificates, as RFC 8705
// servers do. Its tokens are JWT-shaped and bound to the certificate the
// token request presented; the API admits a bound token only with that
// certificate.
type mtlsAS struct {
	*httptest.Server
	alias  bool   // publish mtls_endpoint_aliases
	tokens string // "bound" (default), "unbound" JWTs, or "opaque"

	mu        sync.Mutex
	forms     []map[string][]string
	headers   []http.Header
	tokenPath []string
	tokenCert []string // the thumbprint each token request presented
	apiCert   []string // the thumbprint each API request presented
	refuse    string   // answer token requests with this error code
	seq       int

	conns atomic.Int64 // TLS connections accepted
}

func newMTLSAS(t testing.TB) *mtlsAS {
	a := &mtlsAS{tokens: "bound"}
	a.Server = httptest.NewUnstartedServer(http.HandlerFunc(a.serve))
	a.Server.TLS = &tls.Config{ClientAuth: tls.RequestClientCert}
	a.Server.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			a.conns.Add(1)
		}
	}
	a.StartTLS()
	t.Cleanup(a.Close)
	return a
}

func (a *mtlsAS) serve(w http.ResponseWriter, r *http.Request) {
	switch {
	case strings.Contains(r.URL.Path, "/.well-known/"):
		doc := map[string]any{"issuer": a.URL, "token_endpoint": a.URL + "/token",
			"token_endpoint_auth_methods_supported": []string{"self_signed_tls_client_auth"}}
		if a.alias {
			doc["mtls_endpoint_aliases"] = map[string]string{"token_endpoint": a.URL + "/mtls/token"}
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(doc)
	case strings.HasSuffix(r.URL.Path, "/token"):
		r.ParseForm()
		thumb := peerThumb(r)
		a.mu.Lock()
		a.forms = append(a.forms, r.PostForm)
		a.headers = append(a.headers, r.Header.Clone())
		a.tokenPath = append(a.tokenPath, r.URL.Path)
		a.tokenCert = append(a.tokenCert, thumb)
		a.seq++
		n, refuse, kind := a.seq, a.refuse, a.tokens
		a.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if refuse != "" {
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprintf(w, `{"error":%q}`, refuse)
			return
		}
		if thumb == "" {
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, `{"error":"invalid_client"}`)
			return
		}
		claims := map[string]any{"sub": "svc-client", "jti": n}
		if kind == "bound" {
			claims["cnf"] = map[string]string{"x5t#S256": thumb}
		}
		tok := callerJWT(claims)
		if kind == "opaque" {
			tok = fmt.Sprintf("opaque-%d-%s", n, thumb)
		}
		fmt.Fprintf(w, `{"access_token":%q,"token_type":"Bearer","expires_in":3600}`, tok)
	case r.URL.Path == "/api":
		thumb := peerThumb(r)
		a.mu.Lock()
		a.apiCert = append(a.apiCert, thumb)
		a.mu.Unlock()
		tok := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		if want := boundTo(tok); want != "" && want != thumb {
			w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		io.WriteString(w, "ok")
	default:
		http.NotFound(w, r)
	}
}

// boundTo reads the certificate a test token is bound to.
func boundTo(tok string) string {
	if rest, ok := strings.CutPrefix(tok, "opaque-"); ok {
		_, thumb, _ := strings.Cut(rest, "-")
		return thumb
	}
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		return ""
	}
	raw, _ := base64.RawURLEncoding.DecodeString(parts[1])
	var c struct {
		Cnf struct {
			X5t string `json:"x5t#S256"`
		} `json:"cnf"`
	}
	json.Unmarshal(raw, &c)
	return c.Cnf.X5t
}

func (a *mtlsAS) last() (form map[string][]string, h http.Header, path, cert string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	i := len(a.forms) - 1
	return a.forms[i], a.headers[i], a.tokenPath[i], a.tokenCert[i]
}

func (a *mtlsAS) apiCerts() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.apiCert...)
}

// trust is a transport that trusts the test server's certificate; a fresh
// one per caller, so that pools are not shared by accident.
func (a *mtlsAS) trust() *http.Transport {
	return a.Client().Transport.(*http.Transport).Clone()
}

func (a *mtlsAS) client(t testing.TB, clk *fakeClock, opts ...oauthclient.Option) *oauthclient.Client {
	t.Helper()
	base := []oauthclient.Option{
		oauthclient.WithoutEnv(),
		oauthclient.Issuer(a.URL),
		oauthclient.ClientID("svc-client"),
		oauthclient.HTTPClient(&http.Client{Transport: a.trust()}),
		oauthclient.Clock(clk.Now),
		oauthclient.WithJitter(noJitter),
		oauthclient.Timeout(testTimeout),
	}
	return openClient(t, append(base, opts...)...)
}

func get(t testing.TB, rt http.RoundTripper, url string) (*http.Response, error) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := rt.RoundTrip(req)
	if err == nil {
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	return resp, err
}

func TestTLSClientAuthTokenRequestAndBoundToken(t *testing.T) {
	for _, kind := range []string{"bound", "opaque", "unbound"} {
		t.Run(kind, func(t *testing.T) {
			a := newMTLSAS(t)
			a.tokens = kind
			certFile, keyFile, thumb := clientCertFiles(t, t.TempDir(), "one")
			c := a.client(t, newClock(), oauthclient.TLSClientAuth(certFile, keyFile))
			p := newCC(t, c, "api")
			rt := p.Transport(a.trust())
			resp, err := get(t, rt, a.URL+"/api")
			if err != nil || resp.StatusCode != http.StatusOK {
				t.Fatalf("API call: %v %v", resp, err)
			}
			form, h, _, tokenCert := a.last()
			if tokenCert != thumb {
				t.Fatalf("the token request presented %q, want the client certificate %q", tokenCert, thumb)
			}
			if got := form["client_id"]; len(got) != 1 || got[0] != "svc-client" {
				t.Fatalf("client_id %v", got)
			}
			for _, f := range []string{"client_secret", "client_assertion", "client_assertion_type"} {
				if _, ok := form[f]; ok {
					t.Fatalf("the form carries %s beside the certificate: %v", f, form)
				}
			}
			if h.Get("Authorization") != "" {
				t.Fatalf("Authorization %q sent beside the certificate", h.Get("Authorization"))
			}
			want := thumb
			if kind == "unbound" {
				want = "" // a JWT without cnf is an ordinary bearer token
			}
			if got := a.apiCerts(); len(got) != 1 || got[0] != want {
				t.Fatalf("the API saw certificates %q, want [%q]", got, want)
			}
		})
	}
}

func TestTLSClientAuthUsesTheMTLSAlias(t *testing.T) {
	a := newMTLSAS(t)
	a.alias = true
	certFile, keyFile, _ := clientCertFiles(t, t.TempDir(), "one")
	mustToken(t, newCC(t, a.client(t, newClock(), oauthclient.TLSClientAuth(certFile, keyFile)), "api"))
	if _, _, path, _ := a.last(); path != "/mtls/token" {
		t.Fatalf("token request to %s, want the mtls_endpoint_aliases token_endpoint /mtls/token", path)
	}
	// A client without a certificate keeps to the ordinary endpoint.
	a.refuse = "invalid_client"
	_, err := newCC(t, a.client(t, newClock(), oauthclient.ClientSecret("s3cret")), "api").Token(context.Background())
	var cr *oauthclient.ClientRejectedError
	if !errors.As(err, &cr) {
		t.Fatalf("err = %v, want the scripted invalid_client", err)
	}
	if _, _, path, _ := a.last(); path != "/token" {
		t.Fatalf("a secret client's token request went to %s, want /token", path)
	}
}

func TestTLSClientCertificateRotation(t *testing.T) {
	a := newMTLSAS(t)
	dir := t.TempDir()
	certFile, keyFile, first := clientCertFiles(t, dir, "first")
	clk := newClock()
	c := a.client(t, clk, oauthclient.TLSClientAuth(certFile, keyFile))
	p := newCC(t, c, "api")
	rt := p.Transport(a.trust())
	if resp, err := get(t, rt, a.URL+"/api"); err != nil || resp.StatusCode != 200 {
		t.Fatalf("first call: %v %v", resp, err)
	}
	_, _, second := clientCertFiles(t, dir, "second") // same paths, new pair
	if resp, err := get(t, rt, a.URL+"/api"); err != nil || resp.StatusCode != 200 {
		t.Fatalf("call before the next fetch: %v %v", resp, err)
	}
	clk.Advance(2 * time.Hour) // the token expires: the next fetch reads the files again
	if resp, err := get(t, rt, a.URL+"/api"); err != nil || resp.StatusCode != 200 {
		t.Fatalf("call after the rotation: %v %v", resp, err)
	}
	if _, _, _, tokenCert := a.last(); tokenCert != second {
		t.Fatalf("the fetch after the rotation presented %q, want the new certificate %q", tokenCert, second)
	}
	want := []string{first, first, second}
	if got := a.apiCerts(); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("the API saw %q, want %q: each token over the certificate it is bound to", got, want)
	}
}

// After a rotation, exchanged tokens bound to the old and the new
// certificate alternate on one base: each certificate keeps its transport
// and its pooled connection, so the switch costs no new handshake.
func TestTLSCertificateRotationKeepsBothTransports(t *testing.T) {
	a := newMTLSAS(t)
	dir := t.TempDir()
	certFile, keyFile, first := clientCertFiles(t, dir, "first")
	clk := newClock()
	c := a.client(t, clk, oauthclient.TLSClientAuth(certFile, keyFile))
	p, err := oauthclient.TokenExchange("x", oauthclient.WithoutEnv(), oauthclient.WithClient(c), oauthclient.Audience("api"))
	if err != nil {
		t.Fatal(err)
	}
	exp := clk.Now().Add(time.Hour).Unix()
	base := a.trust() // one base, as an app's API client has
	alice := p.TransportFor(callerJWT(map[string]any{"sub": "alice", "exp": exp}), base)
	bob := p.TransportFor(callerJWT(map[string]any{"sub": "bob", "exp": exp}), base)
	call := func(rt http.RoundTripper) {
		t.Helper()
		if resp, err := get(t, rt, a.URL+"/api"); err != nil || resp.StatusCode != 200 {
			t.Fatalf("API call: %v %v", resp, err)
		}
	}
	call(alice) // alice's token is bound to the first certificate
	_, _, second := clientCertFiles(t, dir, "second")
	call(bob) // bob's to the second
	before := a.conns.Load()
	for range 10 {
		call(alice)
		call(bob)
	}
	if n := a.conns.Load() - before; n > 2 {
		t.Fatalf("20 API calls alternating two certificates made %d new TLS connections, want at most 2", n)
	}
	certs := a.apiCerts()
	for i, got := range certs {
		want := first
		if i%2 == 1 {
			want = second
		}
		if got != want {
			t.Fatalf("API call %d presented %q, want %q: each token over the certificate it is bound to", i, got, want)
		}
	}
}

func TestTLSClientAuthInvalidClientNamesTheMethod(t *testing.T) {
	for _, tc := range []struct {
		name, env, want string
	}{
		{"from the metadata", "", "self_signed_tls_client_auth"},
		{"from the environment", "tls_client_auth", "tls_client_auth"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newMTLSAS(t)
			a.refuse = "invalid_client"
			certFile, keyFile, _ := clientCertFiles(t, t.TempDir(), "one")
			t.Setenv("SVC_OAUTHCLIENT_ISSUER", a.URL)
			t.Setenv("SVC_OAUTHCLIENT_CLIENT_ID", "svc-client")
			t.Setenv("SVC_OAUTHCLIENT_TLS_CERT_FILE", certFile)
			t.Setenv("SVC_OAUTHCLIENT_TLS_KEY_FILE", keyFile)
			if tc.env != "" {
				t.Setenv("SVC_OAUTHCLIENT_AUTH_METHOD", tc.env)
			}
			c, err := oauthclient.New(oauthclient.HTTPClient(&http.Client{Transport: a.trust()}))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close(context.Background())
			p, _ := oauthclient.ClientCredentials("api", oauthclient.WithClient(c))
			_, err = p.Token(context.Background())
			var cr *oauthclient.ClientRejectedError
			if !errors.As(err, &cr) || cr.Method != tc.want || !strings.Contains(cr.Hint, "SVC_OAUTHCLIENT_TLS_CERT_FILE") {
				t.Fatalf("err = %v, want invalid_client naming %s and the certificate setting", err, tc.want)
			}
			if _, _, _, tokenCert := a.last(); tokenCert == "" {
				t.Fatal("the environment's certificate was not presented")
			}
		})
	}
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestCertificateBoundTokenNeedsATransportThatPresentsIt(t *testing.T) {
	a := newMTLSAS(t)
	certFile, keyFile, _ := clientCertFiles(t, t.TempDir(), "one")
	p := newCC(t, a.client(t, newClock(), oauthclient.TLSClientAuth(certFile, keyFile)), "api")

	_, err := p.TokenSource(context.Background()).Token()
	if err == nil || !strings.Contains(err.Error(), "Pattern.Transport") || !strings.Contains(err.Error(), "RFC 8705") {
		t.Fatalf("TokenSource err = %v, want a refusal naming Pattern.Transport", err)
	}
	sent := false
	foreign := roundTripperFunc(func(*http.Request) (*http.Response, error) { sent = true; return nil, errors.New("unreachable") })
	_, err = get(t, p.Transport(foreign), a.URL+"/api")
	if err == nil || !strings.Contains(err.Error(), "*http.Transport") || sent {
		t.Fatalf("err = %v, sent %v: want a refusal naming *http.Transport before anything is sent", err, sent)
	}

	a.tokens = "unbound"
	u := newCC(t, a.client(t, newClock(), oauthclient.TLSClientAuth(certFile, keyFile)), "api")
	if tok, err := u.TokenSource(context.Background()).Token(); err != nil || tok.AccessToken == "" {
		t.Fatalf("a JWT without cnf is not bound, TokenSource: %v, %v", tok, err)
	}
}

func TestTLSClientAuthRefusals(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile, _ := clientCertFiles(t, dir, "one")
	otherDir := t.TempDir()
	_, otherKey, _ := clientCertFiles(t, otherDir, "other")
	keyPEM, _ := os.ReadFile(keyFile)
	https := oauthclient.TokenEndpoint("https://as.example/token")
	cases := []struct {
		name    string
		env     map[string]string
		opts    []oauthclient.Option
		setting string
		want    string
	}{
		{"no certificate", nil, []oauthclient.Option{https, oauthclient.TLSClientAuth("", keyFile)}, "SVC_OAUTHCLIENT_TLS_CERT_FILE", "needs the client certificate"},
		{"no key", nil, []oauthclient.Option{https, oauthclient.TLSClientAuth(certFile, "")}, "SVC_OAUTHCLIENT_TLS_KEY_FILE", "needs the certificate's private key"},
		{"unreadable certificate", nil, []oauthclient.Option{https, oauthclient.TLSClientAuth(filepath.Join(dir, "missing.crt"), keyFile)}, "SVC_OAUTHCLIENT_TLS_CERT_FILE", "cannot read the certificate file"},
		{"unreadable key", nil, []oauthclient.Option{https, oauthclient.TLSClientAuth(certFile, filepath.Join(dir, "missing.key"))}, "SVC_OAUTHCLIENT_TLS_KEY_FILE", "cannot read the key file"},
		{"key of another certificate", nil, []oauthclient.Option{https, oauthclient.TLSClientAuth(certFile, otherKey)}, "SVC_OAUTHCLIENT_TLS_CERT_FILE", "do not form a key pair"},
		{"a transport the certificate cannot be added to", nil, []oauthclient.Option{https, oauthclient.TLSClientAuth(certFile, keyFile),
			oauthclient.HTTPClient(&http.Client{Transport: roundTripperFunc(nil)})}, "oauthclient.HTTPClient", "*http.Transport"},
		{"certificate files beside a secret", map[string]string{"SVC_OAUTHCLIENT_TLS_CERT_FILE": certFile, "SVC_OAUTHCLIENT_TLS_KEY_FILE": keyFile},
			[]oauthclient.Option{https, oauthclient.ClientSecret("s3cret")}, "SVC_OAUTHCLIENT_TLS_CERT_FILE", "SVC_OAUTHCLIENT_AUTH_METHOD=tls_client_auth"},
		{"the environment names TLS, the code a private key", map[string]string{"SVC_OAUTHCLIENT_AUTH_METHOD": "tls_client_auth"},
			[]oauthclient.Option{https, oauthclient.PrivateKey(rsaKeyPEM(t), oauthclient.AudienceTokenEndpoint)}, "SVC_OAUTHCLIENT_AUTH_METHOD", "private_key_jwt"},
		{"a secret method with a certificate", map[string]string{"SVC_OAUTHCLIENT_AUTH_METHOD": "post"},
			[]oauthclient.Option{https, oauthclient.TLSClientAuth(certFile, keyFile)}, "SVC_OAUTHCLIENT_AUTH_METHOD", "tls_client_auth"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("SVC_OAUTHCLIENT_CLIENT_ID", "id")
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			_, err := oauthclient.New(tc.opts...)
			var ce *oauthclient.ConfigError
			if !errors.As(err, &ce) || ce.Setting != tc.setting || !strings.Contains(ce.Problem, tc.want) {
				t.Fatalf("err = %v, want a ConfigError for %s saying %q", err, tc.setting, tc.want)
			}
			mustNotLeak(t, err, "BEGIN", string(keyPEM[40:80]))
		})
	}
}

func TestTLSClientAuthNeedsHTTPS(t *testing.T) {
	s := newTokenServer(t)
	certFile, keyFile, _ := clientCertFiles(t, t.TempDir(), "one")
	c := newClient(t, s, newClock(), oauthclient.TLSClientAuth(certFile, keyFile))
	_, err := newCC(t, c, "api").Token(context.Background())
	var ce *oauthclient.ConfigError
	if !errors.As(err, &ce) || !strings.Contains(ce.Problem, "must be https") {
		t.Fatalf("err = %v, want a ConfigError saying the token endpoint must be https", err)
	}
	if s.count.Load() != 0 {
		t.Fatal("a token request went out over plain http")
	}
	if err := c.Authenticate(context.Background(), http.Header{}, map[string][]string{}); !errors.As(err, &ce) || ce.Setting != "oauthclient.TLSClientAuth" {
		t.Fatalf("Authenticate err = %v, want a ConfigError naming oauthclient.TLSClientAuth", err)
	}
}
