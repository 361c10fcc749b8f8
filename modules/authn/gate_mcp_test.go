package authn_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/dpop"
	svcerrors "github.com/svckit/svc/modules/errors"
)

// The 401s name the route's scopes (all of them, its router's included) in
// the Bearer challenge, as the MCP authorization specification asks, on
// every router; a route without scopes, and a URL no route answers, name
// none.
func TestUnauthorizedChallengeNamesTheRouteScopes(t *testing.T) {
	const rm = `, resource_metadata="https://api.example.com/.well-known/oauth-protected-resource"`
	cases := []struct {
		name      string
		path      string
		header    http.Header
		anchor    string
		challenge string
	}{
		{"no token", "/admin", nil, "authentication-required", `Bearer scope="admin"` + rm},
		{"no token, the router's scopes too", "/reports/secret", nil, "authentication-required", `Bearer scope="read admin"` + rm},
		{"rejected token", "/admin", bearerHeader("expired-token"), "token-rejected", `Bearer error="invalid_token", scope="admin"` + rm},
		{"forged token", "/reports/secret", bearerHeader("forged-token"), "token-rejected", `Bearer error="invalid_token", scope="read admin"` + rm},
		{"a route without scopes", "/me", nil, "authentication-required", `Bearer` + rm[1:]},
		{"no route", "/nowhere", nil, "authentication-required", `Bearer` + rm[1:]},
	}
	for name, router := range map[string]http.Handler{"chi": exampleRouter(), "ServeMux": exampleMux(), "http.ServeMux": exampleMux().ServeMux} {
		srv := gateServer(t, svcerrors.New(), router, newFake(), authn.Resource("https://api.example.com"))
		for _, c := range cases {
			got := do(t, srv, "GET", c.path, c.header, "")
			if got.status != 401 || got.header.Get("WWW-Authenticate") != c.challenge || got.json["type"] != docs+c.anchor ||
				got.header.Get("Content-Type") != "application/problem+json" {
				t.Errorf("%s: %s: %d %q %s, want 401 %q", name, c.name, got.status, got.header.Get("WWW-Authenticate"), got.body, c.challenge)
			}
		}
	}
}

// Under DPoP the DPoP challenge names the route's scopes too: alone when
// the gate requires DPoP, beside Bearer's when it allows it.
func TestUnauthorizedDPoPChallengeNamesTheRouteScopes(t *testing.T) {
	for _, c := range []struct {
		required bool
		want     []string
	}{
		{true, []string{`DPoP algs="ES256", scope="admin"`}},
		{false, []string{`Bearer scope="admin"`, `DPoP algs="ES256", scope="admin"`}},
	} {
		srv := gateServer(t, svcerrors.New(), exampleRouter(), newFake(), authn.DPoP(newDPoPVerifier(t), c.required))
		got := do(t, srv, "GET", "/admin", nil, "")
		if g := got.header.Values("WWW-Authenticate"); got.status != 401 || jsonOf(t, g) != jsonOf(t, c.want) || got.json["type"] != docs+"authentication-required" {
			t.Errorf("required=%v: %d %q %s, want %q", c.required, got.status, g, got.body, c.want)
		}
	}
}

// The metadata document says what the gate enforces of sender-constrained
// tokens, and only that.
func TestMetadataNamesTheBindingsEnforced(t *testing.T) {
	type doc struct {
		Algs     []string `json:"dpop_signing_alg_values_supported"`
		Required *bool    `json:"dpop_bound_access_tokens_required"`
		MTLS     *bool    `json:"tls_client_certificate_bound_access_tokens"`
	}
	yes := true
	cases := []struct {
		name string
		opts []authn.Option
		want doc
	}{
		{"no binding", nil, doc{}},
		{"DPoP allowed", []authn.Option{authn.DPoP(newDPoPVerifier(t, dpop.Algorithms("ES256", "EdDSA")), false)}, doc{Algs: []string{"ES256", "EdDSA"}}},
		{"DPoP required", []authn.Option{authn.DPoP(newDPoPVerifier(t), true)}, doc{Algs: []string{"ES256"}, Required: &yes}},
		{"certificate-bound", []authn.Option{authn.CertificateBound("")}, doc{MTLS: &yes}},
	}
	for _, c := range cases {
		opts := append([]authn.Option{authn.Resource("https://api.example.com")}, c.opts...)
		srv := gateServer(t, svcerrors.New(), exampleRouter(), newFake(), opts...)
		got := do(t, srv, "GET", "/.well-known/oauth-protected-resource", nil, "")
		var d doc
		if err := json.Unmarshal([]byte(got.body), &d); got.status != 200 || err != nil {
			t.Fatalf("%s: %d %v %s", c.name, got.status, err, got.body)
		}
		if g, w := jsonOf(t, d), jsonOf(t, c.want); g != w {
			t.Errorf("%s: %s, want %s (%s)", c.name, g, w, got.body)
		}
	}
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
