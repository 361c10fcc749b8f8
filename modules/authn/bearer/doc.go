// Package bearer verifies access tokens: JWTs (RFC 9068) signed by a
// trusted issuer, and opaque tokens by introspection (RFC 7662). It is
// usable alone, without fx or the gate:
//
//	v, err := bearer.Discover(ctx, issuer, audience)
//	...
//	p, err := v.Verify(ctx, token) // p.Subject, p.Scopes, p.Claims
//
// The gate (package authn) puts a Verifier in front of an app's routes;
// bearer imports nothing of it. What the gate asks of svc's verifiers
// beyond Verify goes through this package's functions (verifier_wiring.go),
// never through a type switch.
//
// # Files
//
// 40 files, about 6100 lines with comments (doc_test.go keeps the count
// true). A token's path is in verify.go and the verify_*.go files it lists;
// the key set (keys.go, keyset.go, jwks.go, discover.go), several issuers
// (issuers.go, tenants.go), introspection (introspect*.go), the principal
// and its claims (principal.go, actors.go, binding.go), provider profiles
// (profile*.go), the refusal reasons (reason.go, verify_errors.go) and the
// options (verifier_options.go) each have files of their own.
//
// # Verifiers
//
// A Verifier turns a bearer token into a Principal. svc ships JWT verifiers
// for asymmetrically signed access tokens:
//
//   - Discover(ctx, issuer, audience): OpenID Connect discovery (RFC 8414 as
//     a fallback) finds the provider's JWK Set, now; the verifier is open
//     and holds its keys when it returns (a program of its own, a CLI);
//   - New(issuer, audience): the same, once the app's lifecycle opens it
//     (fxsvc.Authn does), never waiting for the network at start;
//   - JWKSURL(url, issuer, audience): a JWK Set at a known URL;
//   - KeySet(issuer, audience, keys): public keys held in code;
//   - Issuers(verifiers...): several issuers, each token sent to the one its
//     unverified iss names; New with an issuer template ({tenantid}) and
//     Tenants or AnyTenant: a multi-tenant provider.
//
// Introspect adds opaque tokens (RFC 7662). The gate (package authn) takes
// any Verifier: these, or a type of the app's own.
//
// # What a JWT verifier accepts
//
// A compact JWS (three base64url segments, canonical, no padding or
// whitespace) of at most 8 KiB (MaxTokenSize), signed with RS256, RS384,
// RS512, PS256, PS384, PS512, ES256, ES384 or EdDSA (Algorithms sets the
// list, and adds ES512 only when named: a P-521 check costs about thirty
// ES256 ones) by a key of the matching type and curve from the
// verifier's own key set. `none`, HMAC and every other algorithm are
// refused; so is a key whose type or declared alg does not fit the token's
// alg. RSA-PSS salts must equal the hash length (RFC 7518 §3.5). Header
// and payload must each be one JSON object in valid UTF-8 with unique
// member names. `crit` and `b64` are refused (no extension is understood);
// `jku`, `x5u`, `jwk` and `x5c` are ignored, never followed: keys come only
// from the configured set, by `kid`. A JWE (five segments) is refused
// before any parsing. TokenTypes("at+jwt") additionally requires RFC 9068
// access-token typing. A token with a kid is checked against the keys with
// that kid only; one without is tried against at most four keys of the
// algorithm's type. Either way at most one of the keys tried is expensive
// (P-384, P-521, RSA of 3072 bits or more): the first in the set's order.
// Held keys (KeySet) answer to their RFC 7638 thumbprint as kid, and
// otherwise by type. A JWK is used only if its use is sig (or absent) and
// its key_ops, if any, lists verify; an RSA key with the ROCA fingerprint
// (CVE-2017-15361) is not used. The payload is read as JSON only once its
// signature verified. JWTVerifier.Verify lists the steps, each in its own
// verify_*.go file, in the order a token meets them (verify_errors.go
// names the causes they refuse with).
//
// Fresh signature checks, and introspection requests for opaque tokens
// (Introspect), run under a budget (MaxConcurrentVerifications, default
// GOMAXPROCS). The others wait their turn, taken round-robin
// between client addresses (the gate hands the address over as a Caller), for at most
// VerificationWait (default 2 s); then Verify returns an error wrapping
// ErrBusy (the gate answers 503 with Retry-After, and bans never count
// it). Cached tokens skip the budget, so a flood of forged tokens on
// expensive keys takes at most that many cores while callers already
// verified keep flowing, and a new caller waits a few verifications, not
// the flood's length.
//
// Claims: `iss` must equal the issuer exactly (a trailing slash is a
// difference), `aud` (a string or an array) must contain the audience,
// `exp` is required, and `exp`, `nbf` and `iat` are checked with a leeway
// of 30 s (Leeway). `scope` (space-separated) and `scp` (array or string)
// become Principal.Scopes.
//
// # Keys
//
// Remote keys load in the background once the verifier is opened; Open
// never waits for the network, and until the first load Verify returns an
// error wrapping ErrKeysUnavailable (the gate answers 503). Keys are
// fetched again every hour (RefreshInterval; a shorter Cache-Control
// max-age is honoured), with `Cache-Control: no-cache` so no proxy serves
// a stale set. A token naming an unknown kid waits for one refresh, bounded
// by its context, and is verified again. Background fetches start at most
// once per retry interval (RetryInterval, default 30 s), and a failure is
// remembered for as long; tokens naming unknown kids start one at most once
// per rotation cooldown (RotationCooldown, default 5 s), so a key rotation
// is refused for at most that long while a flood of forged kids costs one
// fetch per cooldown.
//
// # Verification cache
//
// A verified token is cached until its `exp` (plus leeway), keyed by the
// token itself (a seeded hash, confirmed by comparing the whole token), so
// a repeated token costs a map lookup. Entries of a key that leaves the key
// set are dropped. The cache is bounded by bytes (CacheBytes, default 64
// MiB), each entry weighing an estimate of what it keeps alive, and evicts
// with W-TinyLFU, so one-off tokens do not flush returning callers. The
// principal it hands out is shared: treat it as read-only.
//
// # Opaque tokens
//
// Introspect (a VerifierOption) makes a verifier accept opaque access
// tokens too: a token that is not a JWS goes to the issuer's RFC 7662
// introspection endpoint, authenticated as an oauthclient.Client, and an
// active answer's claims are checked as a JWT's are. Answers are cached
// under the token's SHA-256 until exp, at most IntrospectionTTL (default
// 2 minutes: the longest a revocation takes to reach the service), an
// inactive one for 10 s; one request runs per token however many callers
// wait. A failed introspection returns an error wrapping
// ErrIntrospectionUnavailable (the gate answers 503 with Retry-After).
// Introspect lists the rules.
//
// # Provider profiles
//
// Profile(Keycloak()), EntraID(), Cognito(), Auth0(claims...), Okta() or
// RoleClaims(paths...) says where a provider puts the caller's roles and
// client id (Principal.Roles, Principal.ClientID; authn.RequireRole reads
// the roles) and what audience rule holds: Cognito's access tokens carry
// client_id and token_use instead of aud, Entra ID pairs a tenant's v1 and
// v2 issuers. ParseProfile reads one as fxsvc's SVC_AUTHN_PROFILE does.
//
// # Refusals
//
// A refused token is a *TokenError whose Reason is one of the stable words
// malformed, algorithm, signature, unknown-key, expired, not-yet-valid,
// issuer, audience, invalid-claims, token-type, revoked, encrypted,
// too-large, inactive. Only signature and algorithm count as forged (Reason.Forged)
// for bans. Errors never quote the token.
//
// # Configuration errors
//
// Constructors never panic and never fail: an invalid issuer (not https,
// or http on a host that is not loopback, or with a query or fragment), an
// empty audience, an unusable held key or an invalid option makes Open,
// and every Verify, return a *ConfigError naming the setting to fix.
//
// # Why not go-oidc's verifier
//
// coreos/go-oidc verifies OpenID Connect ID tokens for clients; a resource
// server verifying access tokens needs more than it gives. Its RemoteKeySet
// fetches again on every unknown kid with no bound (here: one fetch per
// retry interval, whatever asks); it loads keys on first use, so an
// identity provider that is down turns into slow failures (here: keys load
// in the background and requests get a prompt 503 until they arrive); it
// accepts RSA-PSS signatures whose salt length differs from the hash length
// and lets the last of duplicate JSON members win (both refused here); and
// it checks ID-token rules, `aud` being the client ID and no leeway,
// rather than RFC 9068's access-token rules (typ, required exp, leeway,
// scopes). An app that already trusts an *oidc.IDTokenVerifier can still
// put it behind the gate with package authnoidc.
package bearer
