// Package oidcprovider starts a real, independently written OAuth 2.0 authorization server —
// the npm package oidc-provider 9.13.3 — on 127.0.0.1 for interop tests of svc's inbound
// verifier and outbound token client.
//
// Start runs `node server.mjs` from this directory (Node.js 20+ and `make interop-deps`, which
// runs `npm ci` here, are prerequisites) and stops it when the test ends. The server issues
// RFC 9068 JWT access tokens (header typ "at+jwt", signed ES256 by default) for a resource
// (audience) through the client_credentials grant and RFC 8693 token exchange, and
// authenticates clients with client_secret_basic, client_secret_post, client_secret_jwt or
// private_key_jwt. Test-only admin routes (guarded by a random per-run token) rotate its keys,
// inject failures and delays at the token endpoint, and count requests.
//
// Behaviours of oidc-provider 9.13.3 the tests rely on:
//   - private_key_jwt and client_secret_jwt assertions are accepted with aud equal to the
//     issuer, the token endpoint URL, or (as an array) any list containing one of them; the
//     JWS typ header is not checked, so "client-authentication+jwt" is accepted; exp, jti and
//     iss=sub=client_id are required and a jti is accepted once only.
//   - A bad client secret or assertion answers 401 with {"error":"invalid_client"} and a
//     WWW-Authenticate: Basic header; an unknown grant for the client answers 400
//     unauthorized_client; a scope outside the client's allow list answers 400 invalid_scope.
//   - Token responses carry access_token, token_type "Bearer", expires_in (integer seconds),
//     and scope only when non-empty; never refresh_in, and no refresh_token for these grants.
//   - Requested scopes the resource does not offer are dropped silently, not refused.
package oidcprovider
