package fxsvc_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"go.uber.org/fx"
	"go.uber.org/fx/fxtest"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/svckit/svc/fxsvc"
	"github.com/svckit/svc/lifecycle"
	"github.com/svckit/svc/modules/oauthclient"
)

// tokenEndpoint is a minimal authorization server on 127.0.0.1 that
// counts token requests and answers tok-N.
func oauthTokenEndpoint(t *testing.T) (*httptest.Server, *atomic.Int64) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/.well-known/oauth-authorization-server" {
			fmt.Fprintf(w, `{"issuer":%q,"token_endpoint":%q}`, "http://"+r.Host, "http://"+r.Host+"/token")
			return
		}
		r.ParseForm()
		if r.PostForm.Get("grant_type") == "" {
			w.WriteHeader(400)
			return
		}
		fmt.Fprintf(w, `{"access_token":"tok-%d-%s","token_type":"Bearer","expires_in":3600}`, n.Add(1), r.PostForm.Get("scope"))
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func oauthClientEnv(t *testing.T, issuer string) {
	t.Setenv("SVC_OAUTHCLIENT_ISSUER", issuer)
	t.Setenv("SVC_OAUTHCLIENT_CLIENT_ID", "svc")
	t.Setenv("SVC_OAUTHCLIENT_CLIENT_SECRET", "s3cret")
}

// oauthBillingHandler is what a service writes: a handler that gets the
// "billing" pattern injected by name.
type oauthBillingHandler struct{ billing *oauthclient.Pattern }

func newOAuthBillingHandler(p *oauthclient.Pattern) *oauthBillingHandler {
	return &oauthBillingHandler{billing: p}
}

func TestOAuthClientAndNamedPatternsInjectIntoAHandler(t *testing.T) {
	as, count := oauthTokenEndpoint(t)
	oauthClientEnv(t, as.URL)
	t.Setenv("SVC_CLIENTCREDENTIALS_BILLING_SCOPES", "invoices:read")
	downstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, r.Header.Get("Authorization"))
	}))
	defer downstream.Close()

	var h *oauthBillingHandler
	var client *oauthclient.Client
	var orders *oauthclient.Pattern
	app := fxtest.New(t,
		fxsvc.OAuthClient(),
		fxsvc.ClientCredentials("billing"),
		fxsvc.TokenExchange("orders", oauthclient.Audience("orders-api")),
		fx.Provide(fx.Annotate(newOAuthBillingHandler, fx.ParamTags(`name:"billing"`))),
		fx.Populate(&h, &client),
		fx.Invoke(fx.Annotate(func(p *oauthclient.Pattern) { orders = p }, fx.ParamTags(`name:"orders"`))),
	)
	app.RequireStart()

	resp, err := h.billing.Client().Get(downstream.URL)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "Bearer tok-1-invoices:read" {
		t.Fatalf("downstream saw %q", body)
	}
	if h.billing.Name() != "billing" || orders.Name() != "orders" {
		t.Fatal("patterns under the wrong names")
	}
	if _, err := orders.TokenFor(context.Background(), "caller"); err != nil {
		t.Fatalf("exchange through the app's client: %v", err)
	}
	if count.Load() != 2 {
		t.Fatalf("token requests %d", count.Load())
	}

	app.RequireStop()
	if _, err := h.billing.Token(context.Background()); !errors.Is(err, oauthclient.ErrClosed) {
		t.Fatalf("after stop: %v, want ErrClosed (the app closed the client)", err)
	}
}

// A second OAuthClient fails fx.New. fx rejects the second provider of
// *oauthclient.Client before the singleton check runs, so the error is
// fx's; the singleton claim still stops any other oauthclient component.
func TestOAuthClientIsASingleton(t *testing.T) {
	as, _ := oauthTokenEndpoint(t)
	oauthClientEnv(t, as.URL)
	app := fx.New(fx.NopLogger, fxsvc.OAuthClient(), fxsvc.OAuthClient())
	if err := app.Err(); err == nil || !strings.Contains(err.Error(), "onlyOneOauthClientPerApp") {
		t.Fatalf("err = %v", err)
	}
	var out, errOut strings.Builder
	if code := fxsvc.Run([]string{"check"}, &out, &errOut, fxsvc.OAuthClient(), fxsvc.OAuthClient()); code != 1 ||
		!strings.Contains(errOut.String(), "only one oauth client may be registered per app") {
		t.Fatalf("check: %d %q", code, errOut.String())
	}
	app = fx.New(fx.NopLogger, fxsvc.OAuthClient(), lifecycle.Singleton("oauthclient", "another"))
	var se *lifecycle.SingletonError
	if !errors.As(app.Err(), &se) || se.Kind != "oauthclient" {
		t.Fatalf("err = %v", app.Err())
	}
}

func TestOAuthClientRefusesMissingSettings(t *testing.T) {
	t.Setenv("SVC_OAUTHCLIENT_ISSUER", "")
	app := fx.New(fxsvc.OAuthClient(), fx.NopLogger)
	var ce *oauthclient.ConfigError
	if !errors.As(app.Err(), &ce) {
		t.Fatalf("err = %v, want a *oauthclient.ConfigError", app.Err())
	}
	// Every missing setting at once, even in an app built with fx.New.
	for _, v := range []string{"SVC_OAUTHCLIENT_ISSUER", "SVC_OAUTHCLIENT_CLIENT_ID", "SVC_OAUTHCLIENT_CLIENT_SECRET"} {
		if !strings.Contains(app.Err().Error(), v) {
			t.Errorf("err = %v, want it to name %s", app.Err(), v)
		}
	}
}

func TestOAuthClientDiscoveryFailureFailsStart(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	oauthClientEnv(t, srv.URL)
	app := fx.New(fx.NopLogger, fxsvc.OAuthClient())
	err := app.Start(context.Background())
	var de *oauthclient.DiscoveryError
	var oe *lifecycle.Error
	if !errors.As(err, &de) || !errors.As(err, &oe) || oe.Op != "open" || oe.Component != "oauthclient" {
		t.Fatalf("start: %v", err)
	}
}

func TestOAuthPatternWithItsOwnClientNeedsNoAppClient(t *testing.T) {
	as, _ := oauthTokenEndpoint(t)
	c, err := oauthclient.New(oauthclient.WithoutEnv(), oauthclient.TokenEndpoint(as.URL+"/token"),
		oauthclient.ClientID("other"), oauthclient.ClientSecret("x"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	var p *oauthclient.Pattern
	app := fxtest.New(t,
		fxsvc.ClientCredentials("partner", oauthclient.WithClient(c)),
		fx.Invoke(fx.Annotate(func(x *oauthclient.Pattern) { p = x }, fx.ParamTags(`name:"partner"`))),
	)
	app.RequireStart()
	defer app.RequireStop()
	if _, err := p.Token(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestOAuthPatternRefusals(t *testing.T) {
	for name, opt := range map[string]fx.Option{
		"no client":  fxsvc.ClientCredentials("billing"),
		"bad name":   fxsvc.ClientCredentials(`bill"ing`),
		"empty name": fxsvc.TokenExchange(""),
	} {
		t.Run(name, func(t *testing.T) {
			app := fx.New(fx.NopLogger, opt,
				fx.Invoke(fx.Annotate(func(*oauthclient.Pattern) {}, fx.ParamTags(`name:"billing"`))))
			var ce *oauthclient.ConfigError
			if !errors.As(app.Err(), &ce) {
				t.Fatalf("err = %v, want an oauthclient.ConfigError", app.Err())
			}
		})
	}
}

func TestOAuthClientLogsFailedFetchesWithTheAppLogger(t *testing.T) {
	as := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(500) }))
	defer as.Close()
	t.Setenv("SVC_OAUTHCLIENT_TOKEN_ENDPOINT", as.URL+"/token")
	t.Setenv("SVC_OAUTHCLIENT_CLIENT_ID", "svc")
	t.Setenv("SVC_OAUTHCLIENT_CLIENT_SECRET", "s3cret")
	core, logs := observer.New(zap.WarnLevel)
	var p *oauthclient.Pattern
	app := fxtest.New(t,
		fx.Supply(zap.New(core)),
		fxsvc.OAuthClient(),
		fxsvc.ClientCredentials("billing"),
		fx.Invoke(fx.Annotate(func(x *oauthclient.Pattern) { p = x }, fx.ParamTags(`name:"billing"`))),
	)
	app.RequireStart()
	defer app.RequireStop()
	if _, err := p.Token(context.Background()); err == nil {
		t.Fatal("want an error")
	}
	entries := logs.FilterLoggerName("svc.oauthclient").All()
	if len(entries) != 1 || entries[0].ContextMap()["error.type"] != "server_error" {
		t.Fatalf("logs %v", logs.All())
	}
	if strings.Contains(fmt.Sprint(entries[0].ContextMap()), "s3cret") {
		t.Fatal("the secret was logged")
	}
}

// Issue 22 item 1 from the environment: SVC_TOKENEXCHANGE_<NAME>_ACTOR
// names the app's client-credentials pattern whose token is the actor; a
// name the app does not have fails the start naming the variable and the
// patterns it has.
func TestExchangeActorFromTheEnvironment(t *testing.T) {
	var forms []url.Values
	var mu sync.Mutex
	as := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, "/.well-known/") {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"issuer":%q,"token_endpoint":%q}`, "http://"+r.Host, "http://"+r.Host+"/token")
			return
		}
		r.ParseForm()
		mu.Lock()
		forms = append(forms, r.PostForm)
		n := len(forms)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"access_token":"tok-%d","token_type":"Bearer","expires_in":3600}`, n)
	}))
	t.Cleanup(as.Close)
	oauthClientEnv(t, as.URL)
	t.Setenv("SVC_TOKENEXCHANGE_ORDERS_ACTOR", "self")

	var orders *oauthclient.Pattern
	app := fxtest.New(t,
		fxsvc.OAuthClient(),
		fxsvc.ClientCredentials("self"),
		fxsvc.ClientCredentials("billing"),
		fxsvc.TokenExchange("orders"),
		fx.Invoke(fx.Annotate(func(p *oauthclient.Pattern) { orders = p }, fx.ParamTags(`name:"orders"`))),
	)
	app.RequireStart()
	defer app.RequireStop()
	if _, err := orders.TokenFor(context.Background(), "caller"); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	if len(forms) != 2 || forms[0].Get("grant_type") != "client_credentials" ||
		forms[1].Get("actor_token") != "tok-1" || forms[1].Get("actor_token_type") != oauthclient.TokenTypeAccessToken {
		t.Fatalf("token requests %v", forms)
	}
	mu.Unlock()

	t.Setenv("SVC_TOKENEXCHANGE_ORDERS_ACTOR", "nobody")
	bad := fx.New(fx.NopLogger, fxsvc.OAuthClient(), fxsvc.ClientCredentials("self"), fxsvc.TokenExchange("orders"),
		fx.Invoke(fx.Annotate(func(*oauthclient.Pattern) {}, fx.ParamTags(`name:"orders"`))))
	if err := bad.Err(); err == nil || !strings.Contains(err.Error(), "SVC_TOKENEXCHANGE_ORDERS_ACTOR") || !strings.Contains(err.Error(), "the app has: self") {
		t.Fatalf("err = %v", err)
	}

	// The variable and a file together: one actor each, refused at start
	// naming both, as CLIENT_SECRET and CLIENT_SECRET_FILE are.
	file := filepath.Join(t.TempDir(), "actor.jwt")
	os.WriteFile(file, []byte("workload"), 0o600)
	t.Setenv("SVC_TOKENEXCHANGE_ORDERS_ACTOR", "self")
	t.Setenv("SVC_TOKENEXCHANGE_ORDERS_ACTOR_ASSERTION_FILE", file)
	both := fx.New(fx.NopLogger, fxsvc.OAuthClient(), fxsvc.ClientCredentials("self"), fxsvc.TokenExchange("orders"),
		fx.Invoke(fx.Annotate(func(*oauthclient.Pattern) {}, fx.ParamTags(`name:"orders"`))))
	if err := both.Err(); err == nil || !strings.Contains(err.Error(), "SVC_TOKENEXCHANGE_ORDERS_ACTOR: set either it or SVC_TOKENEXCHANGE_ORDERS_ACTOR_ASSERTION_FILE, not both") {
		t.Fatalf("err = %v, want the pair refused naming both variables", err)
	}

	// The variable and a file in code: the code's actor replaces the
	// environment's.
	t.Setenv("SVC_TOKENEXCHANGE_ORDERS_ACTOR_ASSERTION_FILE", "")
	var coded *oauthclient.Pattern
	app2 := fxtest.New(t, fxsvc.OAuthClient(), fxsvc.ClientCredentials("self"),
		fxsvc.TokenExchange("orders", oauthclient.ActorAssertionFile(file)),
		fx.Invoke(fx.Annotate(func(p *oauthclient.Pattern) { coded = p }, fx.ParamTags(`name:"orders"`))))
	app2.RequireStart()
	defer app2.RequireStop()
	if _, err := coded.TokenFor(context.Background(), "caller"); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	last := forms[len(forms)-1]
	mu.Unlock()
	if last.Get("actor_token") != "workload" || last.Get("actor_token_type") != oauthclient.TokenTypeJWT {
		t.Fatalf("exchange %v, want the file in code as the actor", last)
	}
}
