package authnhuma_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/go-chi/chi/v5"

	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/authnhuma"
	"github.com/svckit/svc/modules/authn/bearer"
	svcerrors "github.com/svckit/svc/modules/errors"
)

const docs = "https://github.com/svckit/svc/blob/main/docs/errors.md#"

// fakeVerifier maps tokens to callers: fast tests without keys. The real
// verifiers are tested in package authn.
type fakeVerifier struct{}

var callers = map[string]bearer.Principal{
	"alice-token":  {Subject: "alice", Issuer: "https://idp.test", Scopes: bearer.NewScopes("read"), Authenticated: true},
	"writer-token": {Subject: "wendy", Issuer: "https://idp.test", Scopes: bearer.NewScopes("read", "items:write"), Authenticated: true},
	"admin-token":  {Subject: "root", Issuer: "https://idp.test", Scopes: bearer.NewScopes("read", "admin"), Authenticated: true},
	"stats-token":  {Subject: "sam", Issuer: "https://idp.test", Scopes: bearer.NewScopes("admin", "stats"), Authenticated: true},
}

func (fakeVerifier) Verify(_ context.Context, token string) (bearer.Principal, error) {
	if p, ok := callers[token]; ok {
		return p, nil
	}
	return bearer.Principal{}, &bearer.TokenError{Reason: bearer.ReasonSignature}
}

func (fakeVerifier) Issuers() []string { return []string{"https://idp.test"} }

func bearerHeader(tok string) http.Header { return http.Header{"Authorization": {"Bearer " + tok}} }

// The operations every test app holds: one of each kind the gate tells
// apart, and one of each error Huma answers.

type helloOutput struct {
	Body struct {
		Message string `json:"message"`
	}
}

func reply(msg string) *helloOutput {
	o := &helloOutput{}
	o.Body.Message = msg
	return o
}

type helloInput struct {
	Caller authnhuma.OptionalCaller
}

type meInput struct {
	Caller authnhuma.Caller
}

type itemInput struct {
	Body struct {
		Name string `json:"name" minLength:"2"`
	}
}

type idInput struct {
	ID int `path:"id"`
}

type empty struct{}

func hello(_ context.Context, in *helloInput) (*helloOutput, error) {
	if !in.Caller.Authenticated {
		return reply("hello stranger"), nil
	}
	return reply("hello " + in.Caller.Subject), nil
}

func me(_ context.Context, in *meInput) (*helloOutput, error) {
	return reply("hello " + in.Caller.Subject), nil
}

func fromContext(ctx context.Context, _ *empty) (*helloOutput, error) {
	p, ok := authn.PrincipalFrom(ctx)
	if !ok {
		return reply("hello stranger"), nil
	}
	return reply("hello " + p.Subject), nil
}

// register adds the operations of the test app to api.
func register(api huma.API) {
	huma.Get(api, "/hello", hello, authnhuma.Anonymous)
	huma.Get(api, "/me", me)
	huma.Get(api, "/token", func(ctx context.Context, _ *empty) (*helloOutput, error) {
		if tok, _ := authn.TokenFrom(ctx); tok != "alice-token" {
			return nil, errors.New("wrong token")
		}
		return reply("token ***"), nil
	})
	huma.Post(api, "/items", func(_ context.Context, in *itemInput) (*helloOutput, error) {
		return reply("created " + in.Body.Name), nil
	}, authnhuma.Require("items:write"))
	huma.Get(api, "/items/{id}", func(_ context.Context, in *idInput) (*helloOutput, error) {
		return reply("item"), nil
	}, authnhuma.Require("read"))
	huma.Get(api, "/admin", fromContext, authnhuma.Require("admin"))
	huma.Get(api, "/boom", func(context.Context, *empty) (*helloOutput, error) {
		return nil, errors.New("db password=hunter2 unreachable")
	})
	huma.Get(api, "/limited", func(context.Context, *empty) (*helloOutput, error) {
		return nil, &svcerrors.RateLimitExceeded{RetryAfter: 1500 * time.Millisecond}
	}, authnhuma.Rejects(&svcerrors.RateLimitExceeded{}))
	huma.Get(api, "/missing", func(context.Context, *empty) (*helloOutput, error) {
		return nil, huma.Error404NotFound("no such thing as item 42", &huma.ErrorDetail{Location: "path.id", Message: "not here", Value: 42})
	})
	huma.Get(api, "/status", fromContext) // excluded in some tests

	admin := huma.NewGroup(api, "/admin-area")
	admin.UseSimpleModifier(authnhuma.Require("admin"))
	huma.Get(admin, "/stats", fromContext, authnhuma.Require("stats"))

	public := huma.NewGroup(api, "/public")
	public.UseSimpleModifier(authnhuma.Anonymous)
	huma.Get(public, "/info", fromContext)
}

// app is a test app: a Huma API under /api, beside the router's own routes.
type app struct {
	name   string
	api    huma.API
	router http.Handler
	gate   *authn.Gate
}

type appOptions struct {
	res     *svcerrors.Responses
	gateOpt []authn.Option
	verify  bearer.Verifier
	noGate  bool // the document is told of no gate
	hook    func(api huma.API)
	extra   []authnhuma.Option
}

func newChiApp(t *testing.T, o appOptions) *app {
	t.Helper()
	g := newGate(t, o)
	root := chi.NewRouter()
	root.Get("/healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") })
	var api huma.API
	root.Route("/api", func(r chi.Router) {
		api = authnhuma.NewChi(r, huma.DefaultConfig("Test API", "1.0.0"), docOptions(g, o)...)
	})
	register(api)
	if o.hook != nil {
		o.hook(api)
	}
	return &app{name: "chi", api: api, router: root, gate: g}
}

func newGoApp(t *testing.T, o appOptions) *app {
	t.Helper()
	g := newGate(t, o)
	mux := authn.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") })
	api := authnhuma.NewGo(mux, huma.DefaultConfig("Test API", "1.0.0"), docOptions(g, o)...)
	register(api)
	if o.hook != nil {
		o.hook(api)
	}
	return &app{name: "servemux", api: api, router: mux, gate: g}
}

func docOptions(g *authn.Gate, o appOptions) []authnhuma.Option {
	opts := []authnhuma.Option{authnhuma.Prefix("/api")}
	if !o.noGate {
		opts = append(opts, authnhuma.Gate(g))
	}
	if o.res != nil {
		opts = append(opts, authnhuma.Errors(o.res))
	}
	return append(opts, o.extra...)
}

func newGate(t *testing.T, o appOptions) *authn.Gate {
	t.Helper()
	v := o.verify
	if v == nil {
		v = fakeVerifier{}
	}
	g, err := authn.New(v, o.gateOpt...)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// serve installs the gate in front of the app's router, inside the error
// format's middleware, and serves it on a loopback listener.
func (a *app) serve(t *testing.T, res *svcerrors.Responses) *httptest.Server {
	t.Helper()
	h, err := a.gate.Handler(a.router)
	if err != nil {
		t.Fatal(err)
	}
	if res != nil {
		h = res.Middleware(h)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

type builder func(t *testing.T, o appOptions) *app

var routers = map[string]builder{"chi": newChiApp, "servemux": newGoApp}

func formats() map[string]*svcerrors.Responses {
	return map[string]*svcerrors.Responses{"rfc9457": svcerrors.New(), "tmf630": svcerrors.NewTMF("API", svcerrors.KindDocs)}
}

type served struct {
	status int
	header http.Header
	body   string
	json   map[string]any
}

func do(t *testing.T, srv *httptest.Server, method, path string, header http.Header, body string) served {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, srv.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	for k, vs := range header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	if body != "" && req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", "application/json")
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	s := served{status: resp.StatusCode, header: resp.Header, body: string(b)}
	_ = json.Unmarshal(b, &s.json)
	return s
}

// each runs fn for every router and error format.
func each(t *testing.T, o appOptions, fn func(t *testing.T, a *app, fname string, res *svcerrors.Responses)) {
	for rname, build := range routers {
		for fname, res := range formats() {
			t.Run(rname+"/"+fname, func(t *testing.T) {
				o := o
				o.res = res
				fn(t, build(t, o), fname, res)
			})
		}
	}
}

func httptestServer(t *testing.T, h http.Handler) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// isInstallError reports whether err is the gate's refusal of a route set-up
// at install: it names the route, "authn: route METHOD PATTERN …".
func isInstallError(err error) bool {
	return err != nil && strings.HasPrefix(err.Error(), "authn: route ")
}
