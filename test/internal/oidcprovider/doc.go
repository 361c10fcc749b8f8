// Package oidcprovider starts a real, independently written OAuth 2.0 authorization server —
// the npm package oidc-provider 9.13.3 — on 127.0.0.1 for interop tests of svc's inbound
// verifier and outbound token client.
//
// Start runs `node server.mjs` from this directory (Node.js 20+ and `make interop-deps`, which
// runs `npm ci` here, are prerequisites) and stops it when the test ends. The server issues
// RFC 9068 JWT access tokens (header typ "at+jwt", signed ES256 by default) for a resource
// (audience) through the client_credentials grant and RFC 8693 token exchange, and
// authenticates clients with client_secret_basic, client_secret_post, client_secret_jwt or
// private_key_jwt, and with Options.MTLS also tls_client_auth and self_signed_tls_client_auth
// (RFC 8705) on a second, https listener whose certificate Start makes. Test-only admin routes (guarded by a random per-run token) rotate its keys,
// inject failures and delays at the token endpoint, and count requests.
//
// Behaviours of oidc-provider 9.13.3 the tests pin (other packages may rely on them):
//   - private_key_jwt and client_secret_jwt assertions are accepted with aud equal to the
//     issuer or the token endpoint URL, or an array containing one of them; the JWS typ header
//     is not checked, so "client-authentication+jwt" is accepted. exp, jti, sub, and
//     iss = client_id are required, client_assertion_type must be sent, and a jti is accepted
//     once only.
//   - client_secret_basic and client_secret_post are interchangeable for a secret client;
//     sending both at once answers 400 invalid_request.
//   - A bad secret, unknown client or bad assertion answers 401 {"error":"invalid_client",
//     "error_description":"client authentication failed"}; HTTP Basic failures add
//     WWW-Authenticate: Basic realm=ISSUER. A grant not registered for the client answers 400
//     invalid_request; an unknown grant 400 unsupported_grant_type; a scope outside the
//     client's allow list 400 invalid_scope; an unknown, relative or second resource 400
//     invalid_target. Every error answer has Cache-Control: no-store.
//   - Token responses carry access_token, token_type "Bearer", expires_in (integer seconds)
//     and scope only when non-empty; never refresh_in, id_token or refresh_token.
//   - Requested scopes the resource does not offer are dropped silently, not refused.
//   - oidc-provider ignores `audience` on client_credentials; this harness maps it to
//     `resource` when no resource is sent, so Auth0-style clients get the audience they ask.
//   - The JWKS answers Content-Type application/jwk-set+json; neither it nor discovery sends
//     Cache-Control.
//   - A client with Client.OpaqueAccessTokens gets opaque access tokens (43 base64url
//     characters, no dots). The RFC 7662 introspection endpoint (introspection_endpoint in
//     discovery) answers any authenticated client, with iss, aud (the resource), client_id,
//     exp, iat, scope and token_type "Bearer", and no sub or jti for client_credentials
//     tokens; a revoked or unknown token answers {"active": false}. With
//     Options.JWTIntrospection it answers a client sending
//     Accept: application/token-introspection+jwt with an RFC 9701 JWT (typ
//     token-introspection+jwt, RS256, aud the client's ID, the answer in token_introspection).
//   - With Options.MTLS, discovery (on either listener) names the https listener's token
//     endpoint in mtls_endpoint_aliases (oidc-provider publishes no aliases itself; the harness
//     adds them). There a tls_client_auth client is accepted with a certificate that chains to
//     Options.ClientCA and whose subject is its SubjectDN, a self_signed_tls_client_auth client
//     with a certificate whose x5t#S256 matches an x5c in its JWKS; a certificate it does not
//     know answers 401 invalid_client. client_id in the body is all the request needs besides
//     the certificate. A CertificateBound client's JWT access token carries cnf.x5t#S256 of the
//     certificate presented, and token_type stays "Bearer".
package oidcprovider
