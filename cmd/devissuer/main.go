// Command devissuer runs the DEVELOPMENT-ONLY issuer of package
// github.com/svckit/svc/devissuer on loopback and prints the settings that
// point a service at it, and a token per subject to call it with:
//
//	go run github.com/svckit/svc/cmd/devissuer -addr 127.0.0.1:9000 -scopes "read write"
//
// It serves until interrupted. More tokens: GET /mint?sub=bob&scope=read on
// its address. Never expose it: it signs whatever it is asked.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
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

// run starts the issuer with args, prints its settings and tokens to out,
// and serves until ctx ends. It returns the exit code: 2 for bad flags, 1
// when the issuer cannot start.
func run(ctx context.Context, args []string, out, errOut io.Writer) int {
	fs := flag.NewFlagSet("devissuer", flag.ContinueOnError)
	fs.SetOutput(errOut)
	addr := fs.String("addr", "127.0.0.1:9000", "loopback `address` to listen on (127.0.0.1:0 picks a free port)")
	audience := fs.String("audience", "svc-example", "the `aud` of the tokens it signs (set the service's SVC_AUTHN_AUDIENCE to it)")
	clientID := fs.String("client-id", "dev-client", "the one client `id` its token endpoint knows")
	clientSecret := fs.String("client-secret", "dev-secret", "that client's `secret`")
	scopes := fs.String("scopes", "read", "space-separated `scopes` of the printed tokens")
	subjects := fs.String("subjects", "alice", "comma-separated `subjects` to print a token for")
	ttl := fs.Duration("ttl", time.Hour, "lifetime of the printed tokens")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(errOut, "devissuer: unexpected argument %q: every setting is a flag (see -h)\n", fs.Arg(0))
		return 2
	}
	if *ttl <= 0 {
		fmt.Fprintf(errOut, "devissuer: -ttl %v: must be positive\n", *ttl)
		return 2
	}
	iss, err := devissuer.Start(devissuer.Options{Addr: *addr, Audience: *audience, ClientID: *clientID, ClientSecret: *clientSecret})
	if err != nil {
		fmt.Fprintf(errOut, "%v\n", err)
		return 1
	}
	defer iss.Close()

	fmt.Fprintf(out, "# development issuer at %s — never expose it. Paste into the service's shell:\n", iss.URL)
	fmt.Fprint(out, iss.Env())
	for _, sub := range strings.Split(*subjects, ",") {
		if sub = strings.TrimSpace(sub); sub == "" {
			continue
		}
		tok, err := iss.Mint(devissuer.Token{Subject: sub, Scopes: strings.Fields(*scopes), TTL: *ttl})
		if err != nil {
			fmt.Fprintf(errOut, "devissuer: %v\n", err)
			return 1
		}
		fmt.Fprintf(out, "# a token for %s (scopes %q, valid %v):\nexport TOKEN_%s=%s\n", sub, *scopes, *ttl, envName(sub), tok)
	}
	fmt.Fprintf(out, "# more tokens: curl '%s/mint?sub=bob&scope=read+write'\n", iss.URL)
	<-ctx.Done()
	return 0
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
