package fxsvc_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"go.uber.org/fx"
	"go.uber.org/fx/fxtest"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/svckit/svc/fxsvc"
)

// trusting is an HTTPS client that trusts certs and opens a new connection
// for every request (so each request sees the certificate served now).
func trusting(certs ...*x509.Certificate) *http.Client {
	pool := x509.NewCertPool()
	for _, c := range certs {
		pool.AddCert(c)
	}
	return &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		TLSClientConfig:   &tls.Config{RootCAs: pool},
		DisableKeepAlives: true,
		ForceAttemptHTTP2: true,
	}}
}

// served fetches url and returns the serial of the certificate it was
// served with and the body.
func served(t *testing.T, c *http.Client, url string) (serial string, body string, proto string) {
	t.Helper()
	resp, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.TLS.PeerCertificates[0].SerialNumber.String(), string(b), resp.Proto
}

func helloRouter() *chi.Mux {
	r := chi.NewRouter()
	r.Get("/", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "hello") })
	return r
}

// Regression: issue 10 (TLS from a cert and key file, re-read on change).
func TestServeTLSFromFilesAndPicksUpAReplacement(t *testing.T) {
	defer fxsvc.SetTLSReloadInterval(0)() // check the files on every handshake
	dir := t.TempDir()
	certA := fxsvc.WriteSelfSigned(t, dir, "tls.crt", "tls.key")
	t.Setenv("SVC_HTTP_TLS_CERT_FILE", filepath.Join(dir, "tls.crt"))
	t.Setenv("SVC_HTTP_TLS_KEY_FILE", filepath.Join(dir, "tls.key"))
	core, logs := observer.New(zap.InfoLevel)
	var srv *fxsvc.Server
	app := fxtest.New(t, fx.Supply(helloRouter(), zap.New(core)), fxsvc.Serve(fxsvc.Addr("127.0.0.1:0")), fx.Populate(&srv))
	app.RequireStart()
	defer app.RequireStop()
	url := "https://" + srv.Addr() + "/"

	// A spare directory makes a second pair to rotate to.
	spare := t.TempDir()
	certB := fxsvc.WriteSelfSigned(t, spare, "tls.crt", "tls.key")
	client := trusting(certA, certB)

	serial, body, proto := served(t, client, url)
	if serial != certA.SerialNumber.String() || body != "hello" {
		t.Fatalf("served %s %q, want certificate A", serial, body)
	}
	if proto != "HTTP/2.0" {
		t.Errorf("protocol %s: HTTP/2 is not offered", proto)
	}

	// Rotation: the new pair renamed into place.
	for _, f := range []string{"tls.key", "tls.crt"} {
		if err := os.Rename(filepath.Join(spare, f), filepath.Join(dir, f)); err != nil {
			t.Fatal(err)
		}
	}
	if serial, _, _ := served(t, client, url); serial != certB.SerialNumber.String() {
		t.Fatalf("after the replacement served %s, want certificate B %s", serial, certB.SerialNumber)
	}

	// A replacement that does not load (a certificate without its key)
	// keeps B, with one warning however many handshakes.
	fxsvc.WriteSelfSigned(t, dir, "tls.crt", "")
	for range 3 {
		if serial, _, _ := served(t, client, url); serial != certB.SerialNumber.String() {
			t.Fatalf("a broken replacement replaced the certificate: served %s", serial)
		}
	}
	warnings := logs.FilterMessageSnippet("do not load").All()
	if len(warnings) != 1 || warnings[0].Level != zap.WarnLevel {
		t.Fatalf("want one warning for the broken pair, got %v", warnings)
	}
	if got := logs.FilterMessage("svc: TLS certificate reloaded").Len(); got != 1 {
		t.Fatalf("want one reload record, got %d", got)
	}
}

func TestServeTLSRefusesOldVersions(t *testing.T) {
	dir := t.TempDir()
	cert := fxsvc.WriteSelfSigned(t, dir, "c.pem", "k.pem")
	var srv *fxsvc.Server
	app := fxtest.New(t, fx.Supply(helloRouter()),
		fxsvc.Serve(fxsvc.Addr("127.0.0.1:0"), fxsvc.TLSFiles(filepath.Join(dir, "c.pem"), filepath.Join(dir, "k.pem"))),
		fx.Populate(&srv))
	app.RequireStart()
	defer app.RequireStop()
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	for _, tc := range []struct {
		name    string
		version uint16
		ok      bool
	}{{"TLS 1.1", tls.VersionTLS11, false}, {"TLS 1.2", tls.VersionTLS12, true}, {"TLS 1.3", tls.VersionTLS13, true}} {
		t.Run(tc.name, func(t *testing.T) {
			conn, err := tls.Dial("tcp", srv.Addr(), &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS10, MaxVersion: tc.version})
			if err == nil {
				conn.Close()
			}
			if (err == nil) != tc.ok {
				t.Fatalf("handshake error %v, want ok=%v", err, tc.ok)
			}
		})
	}
}

func TestServeTLSSettingsAreRefusedNamingThem(t *testing.T) {
	dir := t.TempDir()
	fxsvc.WriteSelfSigned(t, dir, "c.pem", "k.pem")
	fxsvc.WriteSelfSigned(t, dir, "other.pem", "")
	cert, key := filepath.Join(dir, "c.pem"), filepath.Join(dir, "k.pem")
	for _, tc := range []struct {
		name     string
		env      map[string]string
		opts     []fxsvc.ServeOption
		atBuild  bool
		mentions []string
	}{
		{"a cert without a key", map[string]string{"SVC_HTTP_TLS_CERT_FILE": cert}, nil, true,
			[]string{"SVC_HTTP_TLS_CERT_FILE", "SVC_HTTP_TLS_KEY_FILE", "both"}},
		{"a key without a cert", map[string]string{"SVC_HTTP_TLS_KEY_FILE": key}, nil, true,
			[]string{"SVC_HTTP_TLS_CERT_FILE", "SVC_HTTP_TLS_KEY_FILE"}},
		{"an option with one file", nil, []fxsvc.ServeOption{fxsvc.TLSFiles(cert, "")}, true,
			[]string{"fxsvc.TLSFiles"}},
		{"a missing file", nil, []fxsvc.ServeOption{fxsvc.TLSFiles(filepath.Join(dir, "none.pem"), key)}, false,
			[]string{"SVC_HTTP_TLS_CERT_FILE", "none.pem", "k.pem"}},
		{"a key of another certificate", nil, []fxsvc.ServeOption{fxsvc.TLSFiles(filepath.Join(dir, "other.pem"), key)}, false,
			[]string{"SVC_HTTP_TLS_KEY_FILE", "other.pem", "k.pem", "does not match"}},
		{"client certificates without TLS", map[string]string{"SVC_HTTP_TLS_CLIENT_CERTIFICATES": "true"}, nil, true,
			[]string{"SVC_HTTP_TLS_CLIENT_CERTIFICATES", "SVC_HTTP_TLS_CERT_FILE"}},
		{"the option without TLS", nil, []fxsvc.ServeOption{fxsvc.TLSClientCertificates()}, true,
			[]string{"fxsvc.TLSClientCertificates", "fxsvc.TLSFiles"}},
		{"not a boolean", map[string]string{"SVC_HTTP_TLS_CLIENT_CERTIFICATES": "yes please"}, []fxsvc.ServeOption{fxsvc.TLSFiles(cert, key)}, true,
			[]string{"SVC_HTTP_TLS_CLIENT_CERTIFICATES"}},
		{"not PEM", nil, []fxsvc.ServeOption{fxsvc.TLSFiles(key, cert)}, false,
			[]string{"SVC_HTTP_TLS_CERT_FILE", "c.pem", "k.pem"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			app := fx.New(fx.NopLogger, fx.Supply(helloRouter()), fxsvc.Serve(append(tc.opts, fxsvc.Addr("127.0.0.1:0"))...))
			err := app.Err()
			if !tc.atBuild {
				if err != nil {
					t.Fatalf("the files must not be needed to build (check): %v", err)
				}
				err = app.Start(context.Background())
				if err == nil {
					_ = app.Stop(context.Background())
				}
			}
			if err == nil {
				t.Fatal("accepted")
			}
			var se *fxsvc.SettingError
			if !errors.As(err, &se) {
				t.Fatalf("not a *SettingError: %v", err)
			}
			for _, m := range tc.mentions {
				if !strings.Contains(err.Error(), m) {
					t.Fatalf("%v does not mention %q", err, m)
				}
			}
			if strings.Contains(err.Error(), "PRIVATE KEY") || strings.Contains(err.Error(), "BEGIN") {
				t.Fatalf("key material in the error: %v", err)
			}
		})
	}
}

// The files are checked at most once per interval, on a handshake.
func TestCertificateFilesAreCheckedAtMostOncePerInterval(t *testing.T) {
	dir := t.TempDir()
	first := fxsvc.WriteSelfSigned(t, dir, "c.pem", "k.pem")
	var mu sync.Mutex
	now := time.Unix(1_000_000, 0)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	get, err := fxsvc.NewCertReloader(filepath.Join(dir, "c.pem"), filepath.Join(dir, "k.pem"), clock, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	second := fxsvc.WriteSelfSigned(t, dir, "c.pem", "k.pem")
	advance(9 * time.Second)
	if got := get(); !got.Equal(first) {
		t.Fatal("the files were read again inside the interval")
	}
	advance(time.Second)
	if got := get(); !got.Equal(second) {
		t.Fatal("the replacement was not picked up once the interval passed")
	}
}
