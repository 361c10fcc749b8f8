package authn_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"go.opentelemetry.io/otel/attribute"

	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/authntest"
	"github.com/svckit/svc/modules/authn/bearer"
)

// stepUpNow is the verifier's clock in the step-up tests: auth_time is
// judged against it, never against the machine's.
var stepUpNow = time.Unix(1_900_000_000, 0)

// stepUpRoutes puts every step-up rule on a chi router and a ServeMux,
// each route the same on both.
func stepUpRoutes() map[string]http.Handler {
	r := chi.NewRouter()
	r.With(authn.RequireACR("phr", "phrh")).Get("/acr", ok)
	r.With(authn.MaxAge(5*time.Minute)).Get("/fresh", ok)
	r.With(authn.Require("admin"), authn.RequireACR("phr"), authn.MaxAge(5*time.Minute)).Get("/both", ok)
	// The same rules, written the other way round: the answer must not
	// depend on the order of the markers.
	r.With(authn.MaxAge(5*time.Minute), authn.RequireACR("phr"), authn.Require("admin")).Get("/both-reversed", ok)
	r.Route("/group", func(r chi.Router) {
		r.Use(authn.RequireACR("phr", "phrh"))
		r.With(authn.RequireACR("phr")).Get("/inner", ok)
	})

	mux := authn.NewServeMux()
	mux.Handle("GET /acr", authn.RequireACR("phr", "phrh")(okH()))
	mux.Handle("GET /fresh", authn.MaxAge(5*time.Minute)(okH()))
	mux.Handle("GET /both", authn.Require("admin")(authn.RequireACR("phr")(authn.MaxAge(5*time.Minute)(okH()))))
	mux.Handle("GET /both-reversed", authn.MaxAge(5*time.Minute)(authn.RequireACR("phr")(authn.Require("admin")(okH()))))
	mux.Handle("GET /group/inner", authn.RequireACR("phr", "phrh")(authn.RequireACR("phr")(okH())))
	return map[string]http.Handler{"chi": r, "ServeMux": mux}
}

func stepUpIssuer(t *testing.T) (*authntest.Issuer, bearer.Verifier) {
	t.Helper()
	iss := authntest.NewIssuer(t)
	return iss, iss.Verifier(bearer.Clock(func() time.Time { return stepUpNow }), bearer.Leeway(30*time.Second))
}

// stepUpToken mints a token valid at stepUpNow with the claims given.
func stepUpToken(iss *authntest.Issuer, claims map[string]any, scopes ...string) string {
	opts := []authntest.TokenOption{authntest.Claim("iat", stepUpNow.Add(-time.Hour).Unix()), authntest.Expires(stepUpNow.Add(time.Hour))}
	for k, v := range claims {
		opts = append(opts, authntest.Claim(k, v))
	}
	if len(scopes) > 0 {
		opts = append(opts, authntest.Scopes(scopes...))
	}
	return iss.Token(opts...)
}

func ago(d time.Duration) int64 { return stepUpNow.Add(-d).Unix() }

const (
	acrChallenge  = `Bearer error="insufficient_user_authentication", error_description="A different authentication level is required", acr_values="phr phrh"`
	ageChallenge  = `Bearer error="insufficient_user_authentication", error_description="More recent authentication is required", max_age="300"`
	bothChallenge = `Bearer error="insufficient_user_authentication", error_description="A different authentication level is required", acr_values="phr", max_age="300"`
)

func TestStepUpRules(t *testing.T) {
	iss, v := stepUpIssuer(t)
	fresh := ago(time.Minute)
	cases := []struct {
		name      string
		path      string
		claims    map[string]any
		scopes    []string
		status    int
		challenge string
	}{
		{"acr in the list", "/acr", map[string]any{"acr": "phrh"}, nil, 200, ""},
		{"acr not in the list", "/acr", map[string]any{"acr": "pwd"}, nil, 401, acrChallenge},
		{"acr missing", "/acr", nil, nil, 401, acrChallenge},
		{"acr not a string", "/acr", map[string]any{"acr": 2}, nil, 401, acrChallenge},
		{"acr an array", "/acr", map[string]any{"acr": []string{"phr"}}, nil, 401, acrChallenge},
		{"acr differs in case", "/acr", map[string]any{"acr": "PHR"}, nil, 401, acrChallenge},
		{"auth_time fresh", "/fresh", map[string]any{"auth_time": fresh}, nil, 200, ""},
		{"auth_time at the max age", "/fresh", map[string]any{"auth_time": ago(5 * time.Minute)}, nil, 200, ""},
		{"auth_time past the max age within the leeway", "/fresh", map[string]any{"auth_time": ago(5*time.Minute + 20*time.Second)}, nil, 200, ""},
		{"auth_time stale", "/fresh", map[string]any{"auth_time": ago(5*time.Minute + 31*time.Second)}, nil, 401, ageChallenge},
		{"auth_time fractional", "/fresh", map[string]any{"auth_time": float64(fresh) + 0.5}, nil, 200, ""},
		{"auth_time missing", "/fresh", nil, nil, 401, ageChallenge},
		{"auth_time in the future within the leeway", "/fresh", map[string]any{"auth_time": ago(-20 * time.Second)}, nil, 200, ""},
		{"auth_time in the future", "/fresh", map[string]any{"auth_time": ago(-time.Hour)}, nil, 401, ageChallenge},
		{"auth_time a string", "/fresh", map[string]any{"auth_time": "1899999990"}, nil, 401, ageChallenge},
		{"auth_time negative", "/fresh", map[string]any{"auth_time": -1}, nil, 401, ageChallenge},
		{"auth_time huge", "/fresh", map[string]any{"auth_time": 1e300}, nil, 401, ageChallenge},
		{"both met, with scope", "/both", map[string]any{"acr": "phr", "auth_time": fresh}, []string{"admin"}, 200, ""},
		{"both met, scope missing", "/both", map[string]any{"acr": "phr", "auth_time": fresh}, []string{"read"}, 403, `Bearer error="insufficient_scope", scope="admin"`},
		{"acr short, scope held", "/both", map[string]any{"acr": "pwd", "auth_time": fresh}, []string{"admin"}, 401, bothChallenge},
		{"age short, scope held", "/both", map[string]any{"acr": "phr", "auth_time": ago(time.Hour)}, []string{"admin"}, 401, bothChallenge},
		// Both short: step-up wins (401) and names the scope too, so that
		// one new authorization request gets a token that passes.
		{"acr and scope short", "/both", map[string]any{"acr": "pwd", "auth_time": fresh}, []string{"read"}, 401, bothChallenge + `, scope="admin"`},
		{"acr and scope short, reversed markers", "/both-reversed", map[string]any{"acr": "pwd", "auth_time": fresh}, []string{"read"}, 401, bothChallenge + `, scope="admin"`},
		{"both met, scope missing, reversed markers", "/both-reversed", map[string]any{"acr": "phr", "auth_time": fresh}, []string{"read"}, 403, `Bearer error="insufficient_scope", scope="admin"`},
		{"a router's and a route's acr: both accept", "/group/inner", map[string]any{"acr": "phr"}, nil, 200, ""},
		{"a router's and a route's acr: one accepts", "/group/inner", map[string]any{"acr": "phrh"}, nil, 401,
			`Bearer error="insufficient_user_authentication", error_description="A different authentication level is required", acr_values="phr"`},
	}
	for name, router := range stepUpRoutes() {
		srv := gateServer(t, nil, router, v)
		for _, c := range cases {
			tok := stepUpToken(iss, c.claims, c.scopes...)
			got := do(t, srv, "GET", c.path, bearerHeader(tok), "")
			if got.status != c.status || got.header.Get("WWW-Authenticate") != c.challenge {
				t.Errorf("%s: %s: %d %q, want %d %q", name, c.name, got.status, got.header.Get("WWW-Authenticate"), c.status, c.challenge)
			}
			if strings.Contains(got.body+got.header.Get("WWW-Authenticate"), tok) {
				t.Errorf("%s: %s: the token was echoed", name, c.name)
			}
		}
	}
}

// The refusal's body: its own type, status and the requirement, in
// problem+json, and the Cache-Control every error carries.
func TestStepUpRefusalBody(t *testing.T) {
	iss, v := stepUpIssuer(t)
	for name, router := range stepUpRoutes() {
		srv := gateServer(t, nil, router, v)
		got := do(t, srv, "GET", "/both", bearerHeader(stepUpToken(iss, map[string]any{"acr": "pwd"}, "admin")), "")
		if got.status != 401 || got.header.Get("Content-Type") != "application/problem+json" || got.header.Get("Cache-Control") != "no-store" {
			t.Fatalf("%s: %d %v", name, got.status, got.header)
		}
		want := map[string]any{
			"type":       docs + "insufficient-user-authentication",
			"status":     float64(401),
			"title":      "Insufficient user authentication",
			"acr_values": "phr",
			"max_age":    float64(300),
		}
		for k, w := range want {
			if got.json[k] != w {
				t.Errorf("%s: %s = %#v, want %#v (%s)", name, k, got.json[k], w, got.body)
			}
		}
	}
}

// A step-up refusal writes one security record and counts in the
// authorization refusals under its own error.type, never in the attempts
// (the token verified: that attempt succeeded).
func TestStepUpRecordAndMetric(t *testing.T) {
	m := installMetrics(t)
	iss, v := stepUpIssuer(t)
	o := observedGate(t, stepUpRoutes()["chi"], v)
	do(t, o.srv, "GET", "/fresh", bearerHeader(stepUpToken(iss, map[string]any{"auth_time": ago(time.Hour)})), "")
	recs := o.security()
	if len(recs) != 1 {
		t.Fatalf("%d records", len(recs))
	}
	f := recs[0].ContextMap()
	if recs[0].Message != "GET /fresh 401 insufficient-user-authentication" || f["error.type"] != "insufficient-user-authentication" ||
		f["http.route"] != "/fresh" || f["http.response.status_code"] != int64(401) || f["event.action"] != "svc.authorization.refused" {
		t.Fatalf("%q %v", recs[0].Message, f)
	}
	s := func(k, v string) attribute.KeyValue { return attribute.String(k, v) }
	if f["svc.authn.issuer"] != hostPath(iss.URL) {
		t.Errorf("record names issuer %v, want %s", f["svc.authn.issuer"], hostPath(iss.URL))
	}
	if n := m.sum(t, "svc.authorization.refusals", s("error.type", "insufficient-user-authentication"), s("http.route", "/fresh"), s("svc.authn.issuer", hostPath(iss.URL))); n != 1 {
		t.Errorf("authorization refusals %d, want 1", n)
	}
	if n := m.sum(t, "svc.authentication.attempts", s("svc.outcome", "refused")); n != 0 {
		t.Errorf("refused attempts %d, want 0", n)
	}
	if n := m.sum(t, "svc.authentication.attempts", s("svc.outcome", "success")); n != 1 {
		t.Errorf("successful attempts %d, want 1", n)
	}
}

// A route that can never be served as written is refused at install.
func TestStepUpInstallRefusals(t *testing.T) {
	cases := map[string]struct {
		route func(chi.Router)
		opts  []authn.Option
		want  string
	}{
		"RequireACR without values": {func(r chi.Router) { r.With(authn.RequireACR()).Get("/x", ok) }, nil, "no token can hold"},
		"acr values nothing meets": {func(r chi.Router) {
			r.With(authn.RequireACR("a"), authn.RequireACR("b")).Get("/x", ok)
		}, nil, "no token can hold"},
		"acr value with a quote":     {func(r chi.Router) { r.With(authn.RequireACR(`a"b`)).Get("/x", ok) }, nil, "acr_values"},
		"acr value with a space":     {func(r chi.Router) { r.With(authn.RequireACR("a b")).Get("/x", ok) }, nil, "acr_values"},
		"MaxAge below a second":      {func(r chi.Router) { r.With(authn.MaxAge(time.Millisecond)).Get("/x", ok) }, nil, "whole seconds"},
		"MaxAge on an anonymous one": {func(r chi.Router) { r.With(authn.Anonymous, authn.MaxAge(time.Minute)).Get("/x", ok) }, nil, "Anonymous"},
		"step-up on an excluded one": {func(r chi.Router) { r.With(authn.RequireACR("phr")).Get("/x", ok) }, []authn.Option{authn.Exclude("/x")}, "excluded"},
	}
	for name, c := range cases {
		r := chi.NewRouter()
		c.route(r)
		g, err := authn.New(newFake(), c.opts...)
		if err != nil {
			t.Fatal(err)
		}
		_, err = g.Handler(r)
		if !isInstallError(err) || !strings.Contains(err.Error(), " /x ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an InstallError on /x naming %q", name, err, c.want)
		}
	}
}

// `check` prints a route's step-up beside its scopes.
func TestGuardNamesTheStepUp(t *testing.T) {
	g, err := authn.New(newFake())
	if err != nil {
		t.Fatal(err)
	}
	mode, requires := g.Guard("GET", "/both", okH(), []func(http.Handler) http.Handler{
		authn.Require("admin"), authn.RequireACR("phr", "phrh"), authn.MaxAge(5 * time.Minute), authn.MaxAge(time.Hour),
	})
	if want := "admin acr=phr,phrh max_age=300s"; mode != "authenticated" || strings.Join(requires, " ") != want {
		t.Fatalf("%s %q, want authenticated %q", mode, requires, want)
	}
}

// Under bearer.Issuers, auth_time is judged with the leeway of the issuer
// that verified the token: here one issuer allows none, the other a minute.
func TestStepUpUsesTheLeewayOfTheTokensIssuer(t *testing.T) {
	clock := bearer.Clock(func() time.Time { return stepUpNow })
	strict, lenient := authntest.NewIssuer(t), authntest.NewIssuer(t)
	sv, lv := strict.Verifier(clock, bearer.Leeway(0)), lenient.Verifier(clock, bearer.Leeway(time.Minute))
	v := bearer.Issuers(sv, lv)
	r := chi.NewRouter()
	r.With(authn.MaxAge(5*time.Minute)).Get("/fresh", ok)
	srv := gateServer(t, nil, r, v)
	age := map[string]any{"auth_time": ago(5*time.Minute + 30*time.Second)}
	if got := do(t, srv, "GET", "/fresh", bearerHeader(stepUpToken(lenient, age)), ""); got.status != 200 {
		t.Errorf("lenient issuer: %d %s", got.status, got.header.Get("WWW-Authenticate"))
	}
	if got := do(t, srv, "GET", "/fresh", bearerHeader(stepUpToken(strict, age)), ""); got.status != 401 || got.header.Get("WWW-Authenticate") != ageChallenge {
		t.Errorf("strict issuer: %d %s", got.status, got.header.Get("WWW-Authenticate"))
	}
}
