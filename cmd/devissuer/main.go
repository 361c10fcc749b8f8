// Command devissuer runs the DEVELOPMENT-ONLY authorization server of
// package github.com/svckit/svc/devissuer and prints, at start, the
// settings that point a service at it, ready-made tokens of each kind and
// a curl line for each grant:
//
//	go run github.com/svckit/svc/cmd/devissuer -addr 127.0.0.1:9000 -scopes "read write"
//
// It serves until interrupted. It listens on loopback only, and refuses
// another address unless -dev-any-address says this is for development:
// it signs whatever it is asked.
package main

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/svckit/svc/devissuer"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// settings are the command's flags.
type settings struct {
	scopes, subjects, tenants, issuers string
	certDir                            string
	ttl                                time.Duration
}

// run starts the issuer with args, prints its settings and tokens to out,
// and serves until ctx ends. It returns the exit code: 2 for bad flags, 1
// when the issuer cannot start.
func run(ctx context.Context, args []string, out, errOut io.Writer) int {
	fs := flag.NewFlagSet("devissuer", flag.ContinueOnError)
	fs.SetOutput(errOut)
	var opts devissuer.Options
	var s settings
	fs.StringVar(&opts.Addr, "addr", "127.0.0.1:9000", "loopback `address` to listen on (127.0.0.1:0 picks a free port)")
	fs.BoolVar(&opts.AnyAddressForDevelopment, "dev-any-address", false, "allow an -addr that is not loopback: FOR DEVELOPMENT ONLY, this server signs whatever it is asked")
	fs.StringVar(&opts.Audience, "audience", "svc-example", "the `aud` of the tokens it signs (set the service's SVC_AUTHN_AUDIENCE to it)")
	fs.StringVar(&opts.ClientID, "client-id", "dev-client", "the `id` of the client registered at start")
	fs.StringVar(&opts.ClientSecret, "client-secret", "dev-secret", "that client's `secret`")
	fs.BoolVar(&opts.DPoPNonce, "dpop-nonce", false, "require DPoP nonces at the token endpoint (RFC 9449 §8)")
	fs.StringVar(&s.scopes, "scopes", "read", "space-separated `scopes` of the printed tokens")
	fs.StringVar(&s.subjects, "subjects", "alice", "comma-separated `subjects` to print tokens for")
	fs.StringVar(&s.tenants, "tenants", "", "comma-separated `tenants` to serve at /{tenant}/v2.0 (for bearer.Tenants)")
	fs.StringVar(&s.issuers, "issuers", "", "more issuers on the same address, comma-separated `path=audience` (e.g. /partner=partner-api)")
	fs.StringVar(&s.certDir, "cert-dir", "", "write the development CA and a client certificate for -client-id to `dir` (tls_client_auth, certificate-bound tokens)")
	fs.DurationVar(&s.ttl, "ttl", time.Hour, "lifetime of the printed tokens")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(errOut, "devissuer: unexpected argument %q: every setting is a flag (see -h)\n", fs.Arg(0))
		return 2
	}
	if s.ttl <= 0 {
		fmt.Fprintf(errOut, "devissuer: -ttl %v: must be positive\n", s.ttl)
		return 2
	}
	iss, err := devissuer.Start(opts)
	if errors.Is(err, devissuer.ErrNotLoopback) {
		fmt.Fprintf(errOut, "%v\n(the flag -dev-any-address allows it: for development only)\n", err)
		return 1
	}
	if err != nil {
		fmt.Fprintf(errOut, "%v\n", err)
		return 1
	}
	defer iss.Close()
	var more strings.Builder
	if err := addIssuers(iss, s, &more); err != nil {
		fmt.Fprintf(errOut, "%v\n", err)
		return 1
	}
	if err := writeCertificates(iss, s.certDir, &more); err != nil {
		fmt.Fprintf(errOut, "devissuer: -cert-dir: %v\n", err)
		return 1
	}
	if err := printStart(out, iss, s, more.String()); err != nil {
		fmt.Fprintf(errOut, "devissuer: %v\n", err)
		return 1
	}
	<-ctx.Done()
	return 0
}

// addIssuers starts the tenants and issuers the flags name, and prints
// each one's URL.
func addIssuers(iss *devissuer.Issuer, s settings, out io.Writer) error {
	for _, id := range splitList(s.tenants) {
		t, err := iss.Tenant(id)
		if err != nil {
			return fmt.Errorf("-tenants: %w", err)
		}
		fmt.Fprintf(out, "# tenant %s: %s (template for bearer.Tenants: %s)\n", id, t.URL, iss.TenantTemplate())
	}
	for _, e := range splitList(s.issuers) {
		path, aud, ok := strings.Cut(e, "=")
		if !ok || aud == "" {
			return fmt.Errorf("-issuers: %q is not path=audience (e.g. /partner=partner-api)", e)
		}
		other, err := iss.Another(path, devissuer.Options{Audience: aud, ClientID: iss.ClientID, ClientSecret: iss.ClientSecret})
		if err != nil {
			return fmt.Errorf("-issuers: %w", err)
		}
		fmt.Fprintf(out, "# another issuer: %s (audience %s, the same client)\n", other.URL, aud)
	}
	return nil
}

// writeCertificates writes the CA and a client certificate for the
// registered client into dir, lets that client authenticate with it, and
// prints the settings that use them.
func writeCertificates(iss *devissuer.Issuer, dir string, out io.Writer) error {
	if dir == "" {
		return nil
	}
	certPEM, keyPEM, err := iss.ClientCertificate(iss.ClientID)
	if err != nil {
		return err
	}
	files := map[string][]byte{"ca.pem": iss.CACertificate(), "client.pem": certPEM, "client-key.pem": keyPEM}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			return err
		}
	}
	if err := iss.Register(devissuer.Client{ID: iss.ClientID, Secret: iss.ClientSecret, Certificate: true}); err != nil {
		return err
	}
	fmt.Fprintf(out, "# for tls_client_auth and certificate-bound tokens at %s/token, the service trusts %s (SSL_CERT_FILE, for a development run) and sets:\n", iss.MTLSURL(), filepath.Join(dir, "ca.pem"))
	fmt.Fprintf(out, "export SVC_OAUTHCLIENT_TLS_CERT_FILE=%s\nexport SVC_OAUTHCLIENT_TLS_KEY_FILE=%s\n", filepath.Join(dir, "client.pem"), filepath.Join(dir, "client-key.pem"))
	block, _ := pem.Decode(certPEM)
	sum := sha256.Sum256(block.Bytes)
	tok, err := iss.Mint(devissuer.Token{Subject: iss.ClientID, ClientID: iss.ClientID, X5T: base64.RawURLEncoding.EncodeToString(sum[:])})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "# a token bound to client.pem (cnf.x5t#S256; the service needs authn.CertificateBound):\nexport CERT_BOUND_TOKEN=%s\n", tok)
	return nil
}

func splitList(s string) []string {
	var out []string
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// envName makes a subject into the tail of a shell variable name.
func envName(sub string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z':
			return r - 'a' + 'A'
		case r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			return r
		}
		return '_'
	}, sub)
}
