package authn_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/bearer"
)

const (
	partnerIssuer = "https://partner.test"
	tenantIssuer  = "https://login.example.com/{tenantid}/v2.0"
)

// issuerFake verifies callers of three issuers: the service's own, a
// partner, and a tenant of a multi-tenant template.
func issuerFake() *fakeVerifier {
	f := newFake()
	f.callers["partner-token"] = bearer.Principal{Subject: "p", Issuer: partnerIssuer, Scopes: bearer.NewScopes("read", "admin"), Authenticated: true}
	f.callers["tenant-token"] = bearer.Principal{Subject: "t", Issuer: "https://login.example.com/t1/v2.0", Scopes: bearer.NewScopes("read"), Authenticated: true}
	f.callers["partner-reader"] = bearer.Principal{Subject: "r", Issuer: partnerIssuer, Scopes: bearer.NewScopes("read"), Authenticated: true}
	return f
}

// issuerRoutes guard routes by issuer on chi and on a ServeMux, the same
// on both; /both-reversed holds the markers the other way round.
func issuerRoutes() map[string]http.Handler {
	r := chi.NewRouter()
	r.With(authn.RequireIssuer(partnerIssuer)).Get("/partner", ok)
	r.With(authn.RequireIssuer(tenantIssuer, partnerIssuer)).Get("/tenants", ok)
	r.With(authn.RequireIssuer(partnerIssuer), authn.Require("admin")).Get("/both", ok)
	r.With(authn.Require("admin"), authn.RequireIssuer(partnerIssuer)).Get("/both-reversed", ok)
	mux := authn.NewServeMux()
	mux.Handle("GET /partner", authn.RequireIssuer(partnerIssuer)(okH()))
	mux.Handle("GET /tenants", authn.RequireIssuer(tenantIssuer, partnerIssuer)(okH()))
	mux.Handle("GET /both", authn.RequireIssuer(partnerIssuer)(authn.Require("admin")(okH())))
	mux.Handle("GET /both-reversed", authn.Require("admin")(authn.RequireIssuer(partnerIssuer)(okH())))
	return map[string]http.Handler{"chi": r, "ServeMux": mux}
}

// RequireIssuer serves only the named issuers' callers (a template
// matching its tenants) and refuses the others 403 issuer-refused with no
// challenge, before their scopes, whatever the order of the markers.
func TestRequireIssuer(t *testing.T) {
	cases := []struct {
		name      string
		path      string
		token     string
		status    int
		anchor    string
		challenge string
	}{
		{"the issuer named", "/partner", "partner-token", 200, "", ""},
		{"another issuer", "/partner", "alice-token", 403, "issuer-refused", ""},
		{"no token", "/partner", "", 401, "authentication-required", "Bearer"},
		{"a tenant of the template", "/tenants", "tenant-token", 200, "", ""},
		{"the other issuer listed", "/tenants", "partner-token", 200, "", ""},
		{"neither", "/tenants", "admin-token", 403, "issuer-refused", ""},
		{"issuer and scope held", "/both", "partner-token", 200, "", ""},
		{"issuer held, scope short", "/both", "partner-reader", 403, "insufficient-scope", `Bearer error="insufficient_scope", scope="admin"`},
		{"issuer and scope short: the issuer's refusal", "/both", "alice-token", 403, "issuer-refused", ""},
		{"issuer and scope short, reversed markers", "/both-reversed", "alice-token", 403, "issuer-refused", ""},
		{"issuer held, scope short, reversed markers", "/both-reversed", "partner-reader", 403, "insufficient-scope", `Bearer error="insufficient_scope", scope="admin"`},
	}
	for name, router := range issuerRoutes() {
		srv := gateServer(t, nil, router, issuerFake())
		for _, c := range cases {
			var h http.Header
			if c.token != "" {
				h = bearerHeader(c.token)
			}
			got := do(t, srv, "GET", c.path, h, "")
			if got.status != c.status || got.header.Get("WWW-Authenticate") != c.challenge {
				t.Errorf("%s: %s: %d %q, want %d %q", name, c.name, got.status, got.header.Get("WWW-Authenticate"), c.status, c.challenge)
				continue
			}
			if c.anchor == "" {
				continue
			}
			if got.json["type"] != docs+c.anchor || got.json["status"] != float64(c.status) ||
				got.header.Get("Content-Type") != "application/problem+json" || got.header.Get("Cache-Control") != "no-store" {
				t.Errorf("%s: %s: %v %s", name, c.name, got.header, got.body)
			}
			if c.anchor == "issuer-refused" && (got.json["title"] != "Issuer refused" || strings.Contains(got.body, "idp.test") || strings.Contains(got.body, "partner.test")) {
				t.Errorf("%s: %s: body %s names an issuer or has another title", name, c.name, got.body)
			}
		}
	}
}

// An issuer refusal is an authorization refusal: one security record
// under its own error.type.
func TestRequireIssuerRecord(t *testing.T) {
	o := observedGate(t, issuerRoutes()["chi"], issuerFake())
	do(t, o.srv, "GET", "/partner", bearerHeader("alice-token"), "")
	recs := o.security()
	if len(recs) != 1 {
		t.Fatalf("%d records", len(recs))
	}
	f := recs[0].ContextMap()
	if recs[0].Message != "GET /partner 403 issuer-refused" || f["error.type"] != "issuer-refused" || f["event.action"] != "svc.authorization.refused" {
		t.Fatalf("%q %v", recs[0].Message, f)
	}
}

// A RequireIssuer that can admit nobody is refused at install: without
// issuers, markers with none in common, and, with a verifier svc built,
// an issuer it does not trust.
func TestRequireIssuerInstallRefusals(t *testing.T) {
	iss, v := stepUpIssuer(t)
	cases := map[string]struct {
		v     bearer.Verifier
		route func(chi.Router)
		want  string
	}{
		"no issuers": {issuerFake(), func(r chi.Router) { r.With(authn.RequireIssuer()).Get("/x", ok) }, "without issuers"},
		"none in common": {issuerFake(), func(r chi.Router) {
			r.With(authn.RequireIssuer(partnerIssuer), authn.RequireIssuer("https://idp.test")).Get("/x", ok)
		}, "no issuer in common"},
		"not trusted": {v, func(r chi.Router) { r.With(authn.RequireIssuer(partnerIssuer)).Get("/x", ok) }, `"https://partner.test"`},
	}
	for name, c := range cases {
		g, err := authn.New(c.v)
		if err != nil {
			t.Fatal(err)
		}
		r := chi.NewRouter()
		c.route(r)
		if _, err := g.Handler(r); err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "authn.RequireIssuer") {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
	// The issuer it trusts installs, and `check` lists the marker.
	g, err := authn.New(v)
	if err != nil {
		t.Fatal(err)
	}
	r := chi.NewRouter()
	r.With(authn.RequireIssuer(iss.URL), authn.Require("read")).Get("/x", ok)
	if _, err := g.Handler(r); err != nil {
		t.Fatal(err)
	}
	if mode, requires := g.Guard("GET", "/x", authn.RequireIssuer(iss.URL)(authn.Require("read")(okH())), nil); mode != "authenticated" ||
		strings.Join(requires, " ") != "read issuer="+iss.URL {
		t.Fatalf("%s %v", mode, requires)
	}
}
