package bearer

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestParseProfile reads each profile as a setting writes it, shows its
// mapping as `check` prints it, and refuses what it cannot use, naming
// what it accepts.
func TestParseProfile(t *testing.T) {
	for _, tc := range []struct {
		in, want string // want: the mapping once a verifier of audience "orders-api" holds it
	}{
		{"keycloak", "keycloak: roles realm_access.roles resource_access.orders-api.roles; client id azp; audience aud"},
		{"keycloak:web;billing.api", `keycloak: roles realm_access.roles resource_access.web.roles resource_access."billing.api".roles; client id azp; audience aud`},
		{"entra", "entra: roles roles; client id azp or appid; audience aud; v1 and v2 issuers"},
		{"cognito", "cognito: roles cognito:groups; client id client_id; audience client_id; token_use access"},
		{"auth0", "auth0: roles permissions; client id azp; audience aud"},
		{"auth0:https://x.example/roles", `auth0: roles permissions "https://x.example/roles"; client id azp; audience aud`},
		{"okta", "okta: roles groups; client id cid; audience aud"},
		{`generic:realm_access.roles;groups;"https://x.example/roles"`, `generic: roles realm_access.roles groups "https://x.example/roles"; client id azp or client_id; audience aud`},
	} {
		p, err := ParseProfile(tc.in)
		if err != nil {
			t.Errorf("ParseProfile(%q): %v", tc.in, err)
			continue
		}
		v := KeySet("https://issuer.example", "orders-api", nil, Profile(p))
		if got := v.cfg.profile.String(); got != tc.want {
			t.Errorf("ParseProfile(%q) shows\n %s\nwant\n %s", tc.in, got, tc.want)
		}
		if got := v.trusted()[0].Profile; got != tc.want {
			t.Errorf("TrustedIssuer.Profile = %q", got)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"", "unknown; known: keycloak"},
		{"Keycloak", "unknown"},
		{"azure", "unknown"},
		{"okta:groups", "takes no arguments"},
		{"keycloak:", "empty argument"},
		{"auth0:a;;b", "empty argument"},
		{"generic", "names no role claim path"},
		{"generic:a..b", "not member names separated by dots"},
		{`generic:"unclosed`, "not member names"},
		{`generic:"a"b`, "not member names"},
		{"generic:a.", "not member names"},
	} {
		if _, err := ParseProfile(tc.in); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseProfile(%q) = %v, want an error with %q", tc.in, err, tc.want)
		}
	}
}

// TestProfileRefused: a nil profile, or one built with an empty client,
// claim or path, is a *ConfigError naming Profile.
func TestProfileRefused(t *testing.T) {
	for name, p := range map[string]*ProviderProfile{
		"nil": nil, "keycloak client": Keycloak(""), "auth0 claim": Auth0(""),
		"no path": RoleClaims(), "bad path": RoleClaims("a..b"),
	} {
		var ce *ConfigError
		err := KeySet("https://issuer.example", "api", nil, Profile(p)).Open(t.Context())
		if !errors.As(err, &ce) || ce.Setting != "Profile" {
			t.Errorf("%s: Open = %v, want a ConfigError of Profile", name, err)
		}
	}
}

// TestProfileSharedIsNotChanged: one Keycloak profile given to two
// verifiers reads each one's audience as its client.
func TestProfileSharedIsNotChanged(t *testing.T) {
	p := Keycloak()
	a := KeySet("https://issuer.example", "a", nil, Profile(p))
	b := KeySet("https://issuer.example", "b", nil, Profile(p))
	if !slices.Equal(a.cfg.profile.roles[1], []string{"resource_access", "a", "roles"}) ||
		!slices.Equal(b.cfg.profile.roles[1], []string{"resource_access", "b", "roles"}) || len(p.roles) != 1 {
		t.Fatalf("roles: %q, %q, shared %q", a.cfg.profile.roles, b.cfg.profile.roles, p.roles)
	}
}

// TestEntraPair pairs a tenant's v1 and v2 issuers, and nothing else.
func TestEntraPair(t *testing.T) {
	const tid = "72f988bf-86f1-41af-91ab-2d7cd011db47"
	for in, want := range map[string]string{
		"https://login.microsoftonline.com/" + tid + "/v2.0": "https://sts.windows.net/" + tid + "/",
		"https://sts.windows.net/" + tid + "/":               "https://login.microsoftonline.com/" + tid + "/v2.0",
		"https://login.microsoftonline.com/{tenantid}/v2.0":  "",
		"https://login.microsoftonline.com/" + tid:           "",
		"https://keycloak.example.com/realms/x":              "",
		"https://sts.windows.net//":                          "",
	} {
		if got, _ := entraPair(in); got != want {
			t.Errorf("entraPair(%q) = %q, want %q", in, got, want)
		}
	}
}
