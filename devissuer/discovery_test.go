package devissuer_test

import (
	"testing"

	"github.com/svckit/svc/devissuer"
)

// Both well-known documents of every issuer (RFC 8414 puts the path after
// the well-known name, OpenID before it) name every endpoint it serves.
func TestDiscoveryNamesEveryEndpoint(t *testing.T) {
	t.Parallel()
	iss := start(t, devissuer.Options{})
	tenant, _ := iss.Tenant("contoso")
	for u, want := range map[string]*devissuer.Issuer{
		iss.URL + "/.well-known/openid-configuration":                    iss,
		iss.URL + "/.well-known/oauth-authorization-server":              iss,
		tenant.URL + "/.well-known/openid-configuration":                 tenant,
		iss.URL + "/.well-known/oauth-authorization-server/contoso/v2.0": tenant,
	} {
		status, doc := getJSON(t, u)
		aliases, _ := doc["mtls_endpoint_aliases"].(map[string]any)
		if status != 200 || doc["issuer"] != want.URL || doc["token_endpoint"] != want.URL+"/token" ||
			doc["introspection_endpoint"] != want.URL+"/introspect" || doc["revocation_endpoint"] != want.URL+"/revoke" ||
			doc["authorization_endpoint"] != want.URL+"/authorize" || doc["jwks_uri"] != want.URL+"/jwks" ||
			doc["dpop_signing_alg_values_supported"] == nil || aliases["token_endpoint"] != want.MTLSURL()+"/token" {
			t.Errorf("%s: %d %v", u, status, doc)
		}
	}
	if status, body := getJSON(t, iss.URL+"/nobody/.well-known/openid-configuration"); status != 404 || body["error_description"] == "" {
		t.Errorf("no issuer: %d %v", status, body)
	}
	if status, body := getJSON(t, iss.URL+"/token"); status != 405 || body["error"] != "invalid_request" {
		t.Errorf("GET /token: %d %v", status, body)
	}
}
