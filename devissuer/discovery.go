package devissuer

import (
	"net/http"
)

// discovery is the metadata of RFC 8414 and OpenID Connect Discovery,
// naming every endpoint and what each accepts, so that bearer.Discover and
// oauthclient configure themselves from the issuer URL alone.
func (i *Issuer) discovery(w http.ResponseWriter, _ *http.Request) {
	mtls := i.MTLSURL()
	algs := []string{"ES256", "ES384", "ES512", "RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "EdDSA"}
	authMethods := []string{"client_secret_basic", "client_secret_post", "private_key_jwt", "tls_client_auth"}
	writeJSON(w, http.StatusOK, map[string]any{
		"issuer":                                           i.URL,
		"jwks_uri":                                         i.URL + "/jwks",
		"token_endpoint":                                   i.URL + "/token",
		"authorization_endpoint":                           i.URL + "/authorize",
		"introspection_endpoint":                           i.URL + "/introspect",
		"revocation_endpoint":                              i.URL + "/revoke",
		"mtls_endpoint_aliases":                            map[string]string{"token_endpoint": mtls + "/token", "introspection_endpoint": mtls + "/introspect", "revocation_endpoint": mtls + "/revoke"},
		"grant_types_supported":                            grantTypes,
		"response_types_supported":                         []string{"code"},
		"response_modes_supported":                         []string{"query"},
		"code_challenge_methods_supported":                 []string{"S256"},
		"token_endpoint_auth_methods_supported":            authMethods,
		"token_endpoint_auth_signing_alg_values_supported": algs,
		"introspection_endpoint_auth_methods_supported":    authMethods,
		"revocation_endpoint_auth_methods_supported":       authMethods,
		"introspection_signing_alg_values_supported":       []string{"ES256"},
		"dpop_signing_alg_values_supported":                algs,
		"tls_client_certificate_bound_access_tokens":       true,
		"authorization_response_iss_parameter_supported":   true,
		"id_token_signing_alg_values_supported":            []string{"ES256"},
		"subject_types_supported":                          []string{"public"},
		"scopes_supported":                                 []string{"openid"},
		"claims_supported":                                 []string{"iss", "sub", "aud", "exp", "iat", "jti", "scope", "client_id", "acr", "amr", "auth_time", "sid", "cnf", "act", "tid"},
	})
}
