package authn_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/svckit/svc/modules/authn"
)

// acrLevelRoutes ask "at least" a level under authn.ACRLevels, on chi and
// on a ServeMux, each route the same on both.
func acrLevelRoutes() map[string]http.Handler {
	r := chi.NewRouter()
	r.With(authn.RequireACR("2")).Get("/two", ok)
	r.With(authn.RequireACR("1", "3")).Get("/one-or-three", ok)
	r.Route("/group", func(r chi.Router) {
		r.Use(authn.RequireACR("1"))
		r.With(authn.RequireACR("2"), authn.Require("admin")).Get("/inner", ok)
	})
	mux := authn.NewServeMux()
	mux.Handle("GET /two", authn.RequireACR("2")(okH()))
	mux.Handle("GET /one-or-three", authn.RequireACR("1", "3")(okH()))
	mux.Handle("GET /group/inner", authn.RequireACR("1")(authn.RequireACR("2")(authn.Require("admin")(okH()))))
	return map[string]http.Handler{"chi": r, "ServeMux": mux}
}

func levelChallenge(level string) string {
	return `Bearer error="insufficient_user_authentication", error_description="A different authentication level is required", acr_values="` + level + `"`
}

// Under ACRLevels("1","2","3") RequireACR asks at least its lowest level;
// an acr outside the list is refused as without levels; the challenge and
// the body name the level asked for.
func TestACRLevelsAskAtLeast(t *testing.T) {
	iss, v := stepUpIssuer(t)
	cases := []struct {
		name      string
		path      string
		acr       any
		scopes    []string
		status    int
		challenge string
		asked     string
	}{
		{"the level asked", "/two", "2", nil, 200, "", ""},
		{"a stronger level", "/two", "3", nil, 200, "", ""},
		{"a weaker level", "/two", "1", nil, 401, levelChallenge("2"), "2"},
		{"a level not listed", "/two", "4", nil, 401, levelChallenge("2"), "2"},
		{"an acr of another scheme", "/two", "phr", nil, 401, levelChallenge("2"), "2"},
		{"no acr", "/two", nil, nil, 401, levelChallenge("2"), "2"},
		{"acr a number", "/two", 3, nil, 401, levelChallenge("2"), "2"},
		{"several values: at least the lowest", "/one-or-three", "2", nil, 200, "", ""},
		{"several values: the lowest itself", "/one-or-three", "1", nil, 200, "", ""},
		{"several values: none", "/one-or-three", nil, nil, 401, levelChallenge("1"), "1"},
		{"router and route: the stronger wins", "/group/inner", "1", []string{"admin"}, 401, levelChallenge("2"), "2"},
		{"router and route: met", "/group/inner", "3", []string{"admin"}, 200, "", ""},
		{"router and route: scope short too", "/group/inner", "1", nil, 401, levelChallenge("2") + `, scope="admin"`, "2"},
		{"level met, scope short", "/group/inner", "2", nil, 403, `Bearer error="insufficient_scope", scope="admin"`, ""},
	}
	for name, router := range acrLevelRoutes() {
		srv := gateServer(t, nil, router, v, authn.ACRLevels("1", "2", "3"))
		for _, c := range cases {
			claims := map[string]any{}
			if c.acr != nil {
				claims["acr"] = c.acr
			}
			got := do(t, srv, "GET", c.path, bearerHeader(stepUpToken(iss, claims, c.scopes...)), "")
			if got.status != c.status || got.header.Get("WWW-Authenticate") != c.challenge {
				t.Errorf("%s: %s: %d %q, want %d %q", name, c.name, got.status, got.header.Get("WWW-Authenticate"), c.status, c.challenge)
			}
			if c.status == 401 && (got.json["type"] != docs+"insufficient-user-authentication" || got.json["acr_values"] != c.asked ||
				got.header.Get("Content-Type") != "application/problem+json") {
				t.Errorf("%s: %s: body %s, want acr_values %q", name, c.name, got.body, c.asked)
			}
		}
	}
}

// Without ACRLevels the same routes compare values as they are: a
// stronger level is refused, as before.
func TestACRWithoutLevelsComparesValues(t *testing.T) {
	iss, v := stepUpIssuer(t)
	r := chi.NewRouter()
	r.With(authn.RequireACR("2")).Get("/two", ok)
	srv := gateServer(t, nil, r, v)
	got := do(t, srv, "GET", "/two", bearerHeader(stepUpToken(iss, map[string]any{"acr": "3"})), "")
	if got.status != 401 || got.header.Get("WWW-Authenticate") != levelChallenge("2") {
		t.Fatalf("%d %q", got.status, got.header.Get("WWW-Authenticate"))
	}
}

// ACRLevels that cannot order anything are refused by New, naming the
// option; a route asking a level the list lacks is refused at install.
func TestACRLevelsRefused(t *testing.T) {
	for name, c := range map[string]struct {
		levels []string
		want   string
	}{
		"empty":        {nil, "lists no level"},
		"twice":        {[]string{"1", "2", "1"}, `"1" twice`},
		"with a space": {[]string{"1", "a b"}, "acr_values"},
		"empty value":  {[]string{""}, "acr_values"},
	} {
		_, err := authn.New(newFake(), authn.ACRLevels(c.levels...))
		if err == nil || !strings.Contains(err.Error(), "authn.ACRLevels") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error naming authn.ACRLevels and %q", name, err, c.want)
		}
	}
	g, err := authn.New(newFake(), authn.ACRLevels("1", "2", "3"))
	if err != nil {
		t.Fatal(err)
	}
	r := chi.NewRouter()
	r.With(authn.RequireACR("2", "phr")).Get("/x", ok)
	if _, err := g.Handler(r); err == nil || !strings.Contains(err.Error(), `"phr"`) || !strings.Contains(err.Error(), "authn.ACRLevels does not list") {
		t.Fatalf("install: %v", err)
	}
	r = chi.NewRouter()
	r.With(authn.RequireACR()).Get("/x", ok)
	if _, err := g.Handler(r); err == nil || !strings.Contains(err.Error(), "no token can hold") {
		t.Fatalf("install: %v", err)
	}
}

// `check` prints the level a route asks as "acr>=2" under ACRLevels.
func TestACRLevelsGuardWords(t *testing.T) {
	g, err := authn.New(newFake(), authn.ACRLevels("1", "2", "3"))
	if err != nil {
		t.Fatal(err)
	}
	mode, requires := g.Guard("GET", "/x", authn.RequireACR("1")(authn.RequireACR("2", "3")(okH())), nil)
	if mode != "authenticated" || strings.Join(requires, " ") != "acr>=2" {
		t.Fatalf("%s %v", mode, requires)
	}
}
