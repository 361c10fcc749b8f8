// Package dpop verifies DPoP proofs (RFC 9449) on inbound requests: the
// JWT a client signs with its own key for each request, so that an access
// token bound to that key (its cnf.jkt) is useless to anyone without it.
//
// A [Verifier] checks a request's proof completely, in this order:
// one DPoP header, at most 8 KiB; compact JWS, canonical
// base64url; typ dpop+jwt; an asymmetric alg from the allow-list
// ([Algorithms], default ES256; never none or HMAC); a public jwk in the
// header (a private member refuses); the signature with that key; htm the
// request's method; htu the URL the client sent the request to (scheme,
// host and path, through the app's trusted proxies; query and fragment
// ignored; both sides normalized per RFC 3986 §6); iat within the window
// ([Window], default 60s old to 5s ahead); ath the hash of the access
// token presented; the server nonce, when [RequireNonce] is set; in the
// gate, the key's RFC 7638 thumbprint the access token's cnf.jkt; and jti
// unused within the window ([Store], default an in-memory store), last,
// so that a refused proof (one of another key than the token's included)
// spends no jti.
//
// Every refusal has a reason, one word of a fixed set (docs/authn.md
// lists them), for the WWW-Authenticate error and the security record;
// no refusal repeats the proof or any of its claims.
//
// The gate runs the verifier: hand it to authn.DPoP (see docs/authn.md).
// It reads no Authorization header. Where an app verifies proofs itself
// (a token endpoint binding the token it issues to the proof's key),
// [Verifier.Verify] returns the [Proof] or an [*Error] with its Reason.
package dpop
