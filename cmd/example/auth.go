package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"sync"

	"github.com/coder/websocket"
	"go.uber.org/fx"
	"go.uber.org/zap"

	"github.com/svckit/svc/devissuer"
	"github.com/svckit/svc/fxsvc"
	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/bearer"
)

// resource is the URL clients call, as they see it behind the TLS proxy:
// the protected-resource metadata names it.
func resource() string {
	if r := os.Getenv("SVC_EXAMPLE_RESOURCE"); r != "" {
		return r
	}
	return "https://api.svc.example"
}

// checkResource reports a bad SVC_EXAMPLE_RESOURCE with every other bad
// setting, under the variable's name: the gate's own refusal would name
// only authn.Resource. The gate's rule decides (built here on a verifier
// that is never called, and dropped).
func checkResource() error {
	r := os.Getenv("SVC_EXAMPLE_RESOURCE")
	if r == "" {
		return nil
	}
	_, err := authn.New(unusedVerifier{}, authn.Resource(r), authn.AuthorizationServers("https://issuer.invalid"))
	var re *authn.ResourceError
	if errors.As(err, &re) {
		return fmt.Errorf("example: SVC_EXAMPLE_RESOURCE=%q %s", re.Resource, re.Problem)
	}
	return err
}

// unusedVerifier stands in for the verifier when only the gate's settings
// are checked.
type unusedVerifier struct{}

func (unusedVerifier) Verify(context.Context, string) (bearer.Principal, error) {
	return bearer.Principal{}, errors.New("example: unusedVerifier verifies nothing")
}

var gateOptions = []authn.Option{
	authn.Exclude("/healthz", "/errors/*", "/metrics"), // the /api docs: authnhuma.PublicDocs in api.go
	authn.Resource(resource()),
	authn.Scopes("read", "admin"),
}

// trust verifies tokens from SVC_AUTHN_ISSUER when it is set, else from an
// embedded development issuer that is never used when an issuer is
// configured. An audience without an issuer is refused rather than
// silently ignored for the development issuer. Outbound tokens come from
// SVC_OAUTHCLIENT_* in both cases.
func trust() fx.Option {
	switch {
	case os.Getenv("SVC_AUTHN_ISSUER") != "":
		return fx.Options(fxsvc.Authn(nil, gateOptions...), outboundFromEnv())
	case os.Getenv("SVC_AUTHN_AUDIENCE") != "":
		return fx.Error(errors.New("example: SVC_AUTHN_AUDIENCE is set but SVC_AUTHN_ISSUER is not: set both to trust your identity provider, or neither for the development issuer"))
	}
	iss, err := devissuer.Start(devissuer.Options{})
	if err != nil {
		return fx.Error(fmt.Errorf("example: starting the development issuer: %w", err))
	}
	return fx.Options(
		fx.Supply(iss),
		fx.Invoke(func(lc fx.Lifecycle) {
			lc.Append(fx.StopHook(func() error { return iss.Close() }))
		}),
		fxsvc.Authn(bearer.New(iss.URL, iss.Audience), gateOptions...),
		outboundWithDevIssuer(iss),
	)
}

func hello(w http.ResponseWriter, r *http.Request) {
	if p, ok := authn.PrincipalFrom(r.Context()); ok {
		fmt.Fprintf(w, "hello, %s\n", p.Subject)
		return
	}
	fmt.Fprintln(w, "hello, stranger")
}

func me(w http.ResponseWriter, r *http.Request) {
	p, _ := authn.PrincipalFrom(r.Context())
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"subject": p.Subject, "issuer": p.Issuer, "scopes": p.Scopes.List(), "authenticated": p.Authenticated,
	})
}

func admin(w http.ResponseWriter, r *http.Request) {
	p, _ := authn.PrincipalFrom(r.Context())
	fmt.Fprintf(w, "welcome to the admin area, %s\n", p.Subject)
}

// echo is an authenticated websocket: the handshake passed the gate. When
// the server starts draining it closes the socket with 1001 (going away),
// so the client knows to reconnect elsewhere rather than seeing a reset.
func echo(w http.ResponseWriter, r *http.Request) {
	p, _ := authn.PrincipalFrom(r.Context())
	c, err := websocket.Accept(w, r, nil)
	if err != nil {
		return
	}
	ctx, cancel := context.WithCancel(r.Context())
	var closer sync.WaitGroup
	// Run last: the closer goroutine is the handler's, and ends with it.
	defer closer.Wait()
	defer c.CloseNow()
	defer cancel()
	closer.Go(func() {
		select {
		case <-fxsvc.ShuttingDown(ctx):
			_ = c.Close(websocket.StatusGoingAway, "server shutting down")
		case <-ctx.Done():
		}
	})
	for {
		typ, msg, err := c.Read(ctx)
		if err != nil {
			return
		}
		if err := c.Write(ctx, typ, append([]byte(p.Subject+": "), msg...)); err != nil {
			return
		}
	}
}

type tourIn struct {
	fx.In
	Lifecycle fx.Lifecycle
	Server    *fxsvc.Server
	Issuer    *devissuer.Issuer `optional:"true"`
	Logger    *zap.Logger
}

// printTour prints ready-to-paste commands once the server listens.
func printTour(in tourIn) {
	if in.Issuer == nil {
		return
	}
	in.Lifecycle.Append(fx.StartHook(func(context.Context) error {
		reader, err := in.Issuer.Mint(devissuer.Token{Subject: "alice", Scopes: []string{"read"}})
		if err != nil {
			return err
		}
		root, err := in.Issuer.Mint(devissuer.Token{Subject: "root", Scopes: []string{"read", "admin"}})
		if err != nil {
			return err
		}
		base := "http://" + in.Server.Addr()
		in.Logger.Warn("DEVELOPMENT ISSUER on " + in.Issuer.URL + ": tokens below are for local use only; set SVC_AUTHN_ISSUER to trust a real one")
		fmt.Printf(`
svc example on %[1]s — paste these two lines, then try the curls:

  export READER=%[2]s
  export ADMIN=%[3]s

  curl -i %[1]s/me                                        # 401, WWW-Authenticate: Bearer
  curl -i %[1]s/hello                                     # anonymous route: hello, stranger
  curl -i -H "Authorization: Bearer $READER" %[1]s/me      # 200, the principal
  curl -i -H "Authorization: Bearer $READER" %[1]s/admin   # 403 insufficient-scope
  curl -i -H "Authorization: Bearer $ADMIN"  %[1]s/admin   # 200
  curl -i -H "Authorization: Bearer $ADMIN"  %[1]s/admin/keys  # 401 step-up: acr_values="mfa", max_age="300"
  curl -s %[1]s/.well-known/oauth-protected-resource       # RFC 9728 metadata
  curl -H "Authorization: Bearer $READER" %[1]s/billing   # an outbound call with the service's own token
  curl -H "Authorization: Bearer $READER" %[1]s/api/reports  # a Huma operation (scope read)
  curl -s %[1]s/metrics | grep ^svc_                      # svc.authentication.attempts and friends
  curl -i %[1]s/errors/rate-limit-exceeded                # every error kind under /errors/
  go run ./cmd/example check                                # every route and how it is guarded

`, base, reader, root)
		return nil
	}))
}
