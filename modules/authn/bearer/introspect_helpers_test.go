package bearer

import (
	"crypto"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/svckit/svc/modules/oauthclient"
	"github.com/svckit/svc/secret"
)

// Names the introspection tests share.
const (
	opaqueToken  = "opaque-Token_0123456789abcdefghijklmnop"
	testClientID = "rs-client"
	testSecret   = "s3cret:with/odd+chars"
)

// introspectionServer is an RFC 7662 endpoint on loopback. It answers
// every request with answer (or status, when not 200) and records what
// it was sent.
type introspectionServer struct {
	*httptest.Server
	mu          sync.Mutex
	answer      []byte
	contentType string
	status      int
	requests    atomic.Int32
	lastForm    url.Values
	lastHeader  http.Header
	hold        chan struct{} // when not nil, each request waits for it to close
}

func newIntrospectionServer(t testing.TB, answer map[string]any) *introspectionServer {
	t.Helper()
	s := &introspectionServer{status: http.StatusOK, contentType: "application/json"}
	s.setAnswer(t, answer)
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.requests.Add(1)
		body, _ := io.ReadAll(r.Body)
		form, _ := url.ParseQuery(string(body))
		s.mu.Lock()
		s.lastForm, s.lastHeader = form, r.Header.Clone()
		hold, status, ct, answer := s.hold, s.status, s.contentType, s.answer
		s.mu.Unlock()
		if hold != nil {
			select {
			case <-hold:
			case <-r.Context().Done():
				return
			}
		}
		if status != http.StatusOK {
			w.WriteHeader(status)
			return
		}
		w.Header().Set("Content-Type", ct)
		w.Write(answer)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *introspectionServer) setAnswer(t testing.TB, answer map[string]any) {
	t.Helper()
	b, err := json.Marshal(answer)
	if err != nil {
		t.Fatal(err)
	}
	s.setRaw(b, "application/json")
}

func (s *introspectionServer) setRaw(b []byte, contentType string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.answer, s.contentType = b, contentType
}

func (s *introspectionServer) setStatus(status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.status = status
}

func (s *introspectionServer) last() (url.Values, http.Header) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastForm, s.lastHeader
}

// activeAnswer is an answer for a valid token: the claims of a JWT the
// verifier accepts, and the members only introspection sends.
func activeAnswer() map[string]any {
	a := validClaims()
	a["active"] = true
	a["client_id"] = "app"
	a["token_type"] = "Bearer"
	a["cnf"] = map[string]any{"jkt": "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I"}
	return a
}

// testClient is an outbound client for the introspection tests, with a
// token endpoint given so no discovery runs.
func testClient(t testing.TB, tokenEndpoint string, opts ...oauthclient.Option) *oauthclient.Client {
	t.Helper()
	base := []oauthclient.Option{
		oauthclient.WithoutEnv(), oauthclient.TokenEndpoint(tokenEndpoint),
		oauthclient.ClientID(testClientID), oauthclient.ClientSecret(secret.String(testSecret)),
	}
	c, err := oauthclient.New(append(base, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// movableClock is a verifier clock tests move by hand.
type movableClock struct{ ns atomic.Int64 }

func newMovableClock() *movableClock {
	c := &movableClock{}
	c.ns.Store(testNow.UnixNano())
	return c
}

func (c *movableClock) now() time.Time         { return time.Unix(0, c.ns.Load()).UTC() }
func (c *movableClock) add(d time.Duration)    { c.ns.Add(int64(d)) }
func (c *movableClock) option() VerifierOption { return Clock(c.now) }

// introspectingVerifier is an opened KeySet verifier (the RSA test key)
// introspecting at srv.
func introspectingVerifier(t testing.TB, srv *introspectionServer, opts ...VerifierOption) *JWTVerifier {
	t.Helper()
	base := []VerifierOption{Clock(fixedClock()), Introspect(srv.URL+"/introspect", testClient(t, srv.URL+"/token"))}
	v := KeySet(testIssuer, testAudience, []crypto.PublicKey{&keys(t).rsa.PublicKey}, append(base, opts...)...)
	return openVerifier(t, v)
}

// rsaKeyPEM is the RSA test key in PKCS#8 PEM, for private_key_jwt.
func rsaKeyPEM(t testing.TB) []byte {
	t.Helper()
	der, err := x509.MarshalPKCS8PrivateKey(keys(t).rsa)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
}
