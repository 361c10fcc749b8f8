package oauthclient_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/svckit/svc/internal/testcert"
	"github.com/svckit/svc/modules/oauthclient"
)

// counted counts the requests that reach the base transport: one per
// attempt, each a dial (and handshake) of its own.
type counted struct {
	base http.RoundTripper
	n    atomic.Int64
}

func (c *counted) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return c.base.RoundTrip(r)
}

// nxdomain is a DNS server on 127.0.0.1 that answers every query "no
// such name" (RCODE 3), as resolvers answer for .invalid (RFC 6761 §6.4):
// the test resolves through it, on loopback, whatever the machine's
// resolver does. It returns a dialer using it.
func nxdomain(t *testing.T) *net.Dialer {
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close() })
	go func() {
		buf := make([]byte, 512)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			if n < 12 {
				continue
			}
			// The query back, as an answer: QR, RD and RA set, RCODE 3,
			// no records; the question section is kept.
			buf[2], buf[3] = 0x81, 0x83
			for i := 6; i < 12; i++ {
				buf[i] = 0
			}
			pc.WriteTo(buf[:n], from)
		}
	}()
	addr := pc.LocalAddr().String()
	return &net.Dialer{Resolver: &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "udp", addr)
	}}}
}

// tlsAPI is an API over TLS with cert, counting its handshakes.
func tlsAPI(t *testing.T, cert tls.Certificate) (*httptest.Server, *atomic.Int64) {
	var handshakes atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}, GetConfigForClient: func(*tls.ClientHelloInfo) (*tls.Config, error) {
		handshakes.Add(1)
		return nil, nil
	}}
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshakes
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv, &handshakes
}

// An attempt no repeat can mend — a host name that does not exist, a
// certificate that does not verify, a scheme the transport does not
// speak — is sent once, its error returned as it is, and not counted
// toward the breaker: after MinRequests of them the breaker is still
// closed.
func TestResilientDoesNotRetryWhatCannotSucceed(t *testing.T) {
	ca := testcert.NewCA(t)
	trusted := testcert.Pool(ca.Cert)
	cases := []struct {
		name  string
		setup func(t *testing.T) (url string, base *http.Transport, handshakes *atomic.Int64)
		want  func(error) bool
	}{
		{"no such host", func(t *testing.T) (string, *http.Transport, *atomic.Int64) {
			return "http://api.invalid:8080/x", &http.Transport{DialContext: nxdomain(t).DialContext, DisableKeepAlives: true}, nil
		}, func(err error) bool {
			var dns *net.DNSError
			return errors.As(err, &dns) && dns.IsNotFound
		}},
		{"unknown authority", func(t *testing.T) (string, *http.Transport, *atomic.Int64) {
			srv, n := tlsAPI(t, testcert.NewCA(t).Server(t))
			return srv.URL, &http.Transport{TLSClientConfig: &tls.Config{RootCAs: trusted}, DisableKeepAlives: true}, n
		}, func(err error) bool {
			var ua x509.UnknownAuthorityError
			var cv *tls.CertificateVerificationError
			return errors.As(err, &ua) && errors.As(err, &cv)
		}},
		{"expired", func(t *testing.T) (string, *http.Transport, *atomic.Int64) {
			srv, n := tlsAPI(t, ca.Server(t, testcert.Valid(time.Now().Add(-48*time.Hour), time.Now().Add(-24*time.Hour))))
			return srv.URL, &http.Transport{TLSClientConfig: &tls.Config{RootCAs: trusted}, DisableKeepAlives: true}, n
		}, func(err error) bool {
			var ci x509.CertificateInvalidError
			return errors.As(err, &ci) && ci.Reason == x509.Expired
		}},
		{"other host name", func(t *testing.T) (string, *http.Transport, *atomic.Int64) {
			srv, n := tlsAPI(t, ca.Server(t, testcert.Hosts("billing.example")))
			return srv.URL, &http.Transport{TLSClientConfig: &tls.Config{RootCAs: trusted}, DisableKeepAlives: true}, n
		}, func(err error) bool {
			var hn x509.HostnameError
			return errors.As(err, &hn)
		}},
		{"unsupported scheme", func(t *testing.T) (string, *http.Transport, *atomic.Int64) {
			return "ftp://127.0.0.1:21/x", &http.Transport{DisableKeepAlives: true}, nil
		}, func(err error) bool { return err != nil }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			url, base, handshakes := tc.setup(t)
			t.Cleanup(base.CloseIdleConnections)
			w := &waits{}
			p := newCC(t, newClient(t, newTokenServer(t), newClock()), "api",
				oauthclient.Sleeping(oauthclient.Resilience{MaxAttempts: 3, MinRequests: 2, FailureRate: 0.5}, w.sleep))
			sent := &counted{base: base}
			hc := &http.Client{Transport: p.Transport(sent)}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			for i := 1; i <= 3; i++ {
				_, err := send(t, hc, ctx, http.MethodGet, url, "")
				if !tc.want(err) {
					t.Fatalf("request %d: err %v, want the cause itself (not a breaker's refusal)", i, err)
				}
				if got := sent.n.Load(); got != int64(i) {
					t.Fatalf("request %d: %d attempts in all, want %d (one each, never retried)", i, got, i)
				}
			}
			if len(w.all()) != 0 {
				t.Fatalf("waited %v between attempts: none was due", w.all())
			}
			if handshakes != nil && handshakes.Load() != 3 {
				t.Fatalf("%d TLS handshakes, want 3", handshakes.Load())
			}
		})
	}
}

// The token request is not repeated after a host name that does not exist
// (a lost connection is, once): the token endpoint's name is looked up
// once per fetch.
func TestTokenFetchDoesNotRetryANameThatDoesNotExist(t *testing.T) {
	sent := &counted{base: &http.Transport{DialContext: nxdomain(t).DialContext, DisableKeepAlives: true}}
	c, err := oauthclient.New(oauthclient.WithoutEnv(), oauthclient.TokenEndpoint("https://auth.invalid/token"),
		oauthclient.ClientID("svc-client"), oauthclient.ClientSecret("s3cret-value"), oauthclient.HTTPClient(&http.Client{Transport: sent}))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	p := newCC(t, c, "api")
	_, err = p.Token(context.Background())
	var ue *oauthclient.UnavailableError
	var dns *net.DNSError
	if !errors.As(err, &ue) || ue.Reason != "connection" || !errors.As(err, &dns) || !dns.IsNotFound {
		t.Fatalf("err %v, want an *UnavailableError (connection) caused by the DNS not-found", err)
	}
	if sent.n.Load() != 1 {
		t.Fatalf("%d token requests sent, want 1", sent.n.Load())
	}
}
