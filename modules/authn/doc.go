// Package authn puts a bearer-token gate in front of an app's routes: it
// authenticates every request and websocket handshake with a Verifier
// (package bearer), then lets the route's markers authorize.
//
// # The gate
//
// New builds a Gate around a bearer.Verifier; Gate.Handler puts it in front
// of a router (chi, net/http's ServeMux, authn.ServeMux, Huma through
// authnhuma) whose routes it reads, and Middleware fits hand-built stacks.
// A request without a credential is refused before routing unless its
// route is Anonymous or Excluded; a token is verified before routing, then
// the route's markers (Require) check scopes. Refusals take the registered
// error format (svcerrors) with the RFC 6750 challenge; each is a Refusal
// whose Kind and bearer.Reason are stable words.
//
// Beside verification the gate checks what binds a token to its sender:
// DPoP proofs (RFC 9449: DPoP, RequireDPoP) and client certificates (RFC
// 8705: CertificateBound), refusing with the reasons dpop-proof,
// dpop-nonce, dpop-binding, dpop-required and certificate-binding. A token
// bound to a proof the gate does not check is refused, never taken as a
// bearer token. Bans and Flood (packages bans and flood) hold back callers
// that send forged tokens; Resource publishes the protected-resource
// metadata (RFC 9728).
//
// # Step-up and claims challenges
//
// Beside Require's scopes, a route may ask how its caller's user
// authenticated (RFC 9470): RequireACR lists the `acr` values it accepts,
// MaxAge how long ago `auth_time` may be. A token short of them is refused
// 401 insufficient_user_authentication with acr_values and max_age, so
// that the client sends the user to log in again; when the token also
// lacks a scope, this 401 wins and names the scope too. A check hook
// (Check) asks for more claims with ClaimsChallenge: 401
// insufficient_claims with the claims request, as Entra clients expect.
//
// # Roles
//
// RequireRole asks for roles the verifier's provider profile reads
// (bearer.Profile: Keycloak realm and client roles, Entra ID roles,
// Cognito groups, Auth0 permissions, Okta groups, claim paths of the
// app's choosing) into Principal.Roles. A caller lacking one is refused
// 403 insufficient-role naming the missing roles, never the token's.
package authn
