package fxsvc_test

import (
	"crypto/tls"
	"io"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/go-chi/chi/v5"
	"go.uber.org/fx"
	"go.uber.org/fx/fxtest"

	"github.com/svckit/svc/fxsvc"
	"github.com/svckit/svc/internal/testcert"
)

// A client's certificate reaches the handler only when the server asks for
// it; a client without one is still served.
func TestServeTLSClientCertificates(t *testing.T) {
	mine := testcert.SelfSigned(t, testcert.Name("client"))
	for _, tc := range []struct {
		name    string
		env     string
		opts    []fxsvc.ServeOption
		present bool
		want    string
	}{
		{"asked by the option, sent", "", []fxsvc.ServeOption{fxsvc.TLSClientCertificates()}, true, "client"},
		{"asked by the variable, sent", "true", nil, true, "client"},
		{"asked, none sent", "", []fxsvc.ServeOption{fxsvc.TLSClientCertificates()}, false, "none"},
		{"not asked", "", nil, true, "none"},
		{"variable false", "false", nil, true, "none"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			server := fxsvc.WriteSelfSigned(t, dir, "tls.crt", "tls.key")
			if tc.env != "" {
				t.Setenv("SVC_HTTP_TLS_CLIENT_CERTIFICATES", tc.env)
			}
			router := chi.NewRouter()
			router.Get("/", func(w http.ResponseWriter, r *http.Request) {
				if len(r.TLS.PeerCertificates) == 0 {
					_, _ = io.WriteString(w, "none")
					return
				}
				_, _ = io.WriteString(w, r.TLS.PeerCertificates[0].Subject.CommonName)
			})
			var srv *fxsvc.Server
			opts := append(tc.opts, fxsvc.Addr("127.0.0.1:0"), fxsvc.TLSFiles(filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")))
			app := fxtest.New(t, fx.Supply(router), fxsvc.Serve(opts...), fx.Populate(&srv))
			app.RequireStart()
			defer app.RequireStop()
			client := trusting(server)
			if tc.present {
				client.Transport.(*http.Transport).TLSClientConfig.Certificates = []tls.Certificate{mine}
			}
			_, body, _ := served(t, client, "https://"+srv.Addr()+"/")
			if body != tc.want {
				t.Fatalf("handler saw %q, want %q", body, tc.want)
			}
		})
	}
}
