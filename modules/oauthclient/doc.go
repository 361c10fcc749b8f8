// Package oauthclient obtains, caches and refreshes OAuth 2.0 access tokens
// for a service's outgoing calls, as the service itself (client
// credentials) or on behalf of the caller it is serving (RFC 8693 token
// exchange, or the on-behalf-of grant), and attaches them to requests.
//
// A [Client] holds what is set once: the authorization server (an issuer,
// whose metadata is discovered when the client opens, or a token endpoint),
// the client ID and authentication ([Secret], [PrivateKey],
// [AssertionFile]), timeouts, refresh and retry settings, and the failure
// memory. A [Pattern] holds what is per API: its name, audience, resource,
// scopes and token cache.
//
//	c, err := oauthclient.New() // SVC_OAUTHCLIENT_* from the environment
//	billing, err := oauthclient.ClientCredentials("billing", oauthclient.WithClient(c))
//	resp, err := billing.Client().Get("https://billing.internal/invoices")
//
// In an fx app use fxsvc.OAuthClient and fxsvc.ClientCredentials, which
// open and close the client with the app and provide the pattern under its
// name (`name:"billing"`).
//
// # Caching and refresh
//
// Tokens are cached in memory per pattern and never shared across
// replicas. A cached token is served until it enters its refresh window;
// then the first request starts one fetch on a goroutine the client owns
// and is served the cached token, as is every request while the fetch
// runs. Only a request that has no usable token waits, and all such
// requests share one fetch. Cancelling a request never cancels the fetch it
// started; closing the client does.
//
// The refresh window starts (lifetime − refresh_in) before expiry when the
// server sends refresh_in (the seconds after which it wants the token
// refreshed, as Microsoft Entra does); otherwise refresh_before before
// expiry, capped at half the lifetime. A random extra of up to half the
// window moves the start earlier, so replicas spread their fetches. A token
// answer without expires_in takes the exp of the token when it is a JWT,
// else the token is kept until an API refuses it.
//
// Exchanged tokens are cached per (caller token, client ID, grant, target),
// keyed by a SHA-256 digest, until the earlier of their expiry and the
// caller token's exp (read, not verified: it was verified inbound). They
// are never refreshed ahead. A caller token without exp is exchanged on
// every call. The cache is bounded ([ExchangeCacheSize]).
//
// # Failures
//
// Failed fetches are remembered so that a failing server is not called
// again by every request:
//
//	server down, timeout, 5xx, 408, 429 without Retry-After   whole client, retry interval   *UnavailableError
//	429 or 503 with Retry-After                                whole client, the asked time   *UnavailableError (retry_after)
//	                                                           (1 s to 1 h)
//	invalid_client                                             whole client, retry interval   *ClientRejectedError
//	unauthorized_client                                        that grant, retry interval     *ClientRejectedError
//	any other 4xx, with or without error code                  that token, retry interval     *TokenRefusedError
//	a 2xx without a usable Bearer token                        whole client, retry interval   *UnavailableError (invalid_response)
//	an unreadable secret or assertion file, a failed signer    whole client, retry interval   *ConfigError
//	an Assertion source that failed (endpoint not contacted)   whole client, retry interval   *UnavailableError (assertion)
//	an unreadable actor token file                             not remembered                 *ConfigError
//	metadata unusable (another issuer, no token_endpoint)      whole client, retry interval   *DiscoveryError
//
// While a failure is remembered a still-valid cached token keeps being
// served. A failure remembered while a client-credentials pattern's token
// was alive stops that pattern's fetches at most until the token expires:
// then one fetch is made (its own failure is remembered in full), so a
// refresh that failed late in a short token's life never leaves the
// pattern without a token while the server may answer. A Retry-After is
// kept in full: the server asked for it. A connection lost before any answer is retried once at once (with
// a fresh client assertion); a timeout is not retried. Discovery failures
// are remembered like fetch failures; an unreachable server does not stop
// the app from starting. No error repeats a server's response body, a
// secret, an assertion or a token; OAuth error codes are kept only when
// well-formed.
//
// An error a handler returns through svcerrors (fxsvc.Errors) answers by
// its kind (this package does not import svcerrors; an internal package
// carries the kind across): [*UnavailableError] 503 upstream-token-unavailable with
// Retry-After, [*ClientRejectedError], [*TokenRefusedError] and
// [*DiscoveryError] 502 upstream-token-refused. A [*ConfigError] and
// [ErrClosed] stay an unknown error: a logged 500.
//
// # Short-lived tokens
//
// A refresh starts in the refresh window: min(refresh_before, lifetime/2)
// before expiry. For a failed refresh to be retried before the token ends,
// keep timeout + retry_interval below that window. For 30 s tokens (a 15 s
// window) SVC_OAUTHCLIENT_TIMEOUT=3s and SVC_OAUTHCLIENT_RETRY_INTERVAL=5s
// leave room for two attempts; the defaults (10s + 10s) leave none, and
// then the token's expiry ends the failure memory early, as above.
//
// # Outgoing requests
//
// [Pattern.Transport] and [Pattern.Client] attach the token. When an API
// answers 401 with a Bearer error="invalid_token" challenge, the token is
// dropped (at most once per retry interval, concurrent refusals sharing
// one fetch) and the request is repeated once, whatever its method (a 401
// means the API did not act on it), only when its body can be sent again.
//
// # Sender-constrained tokens
//
// With [DPoP] the client holds a key (generated, or any crypto.Signer) and
// its tokens are bound to it (RFC 9449): token requests and, through
// [Pattern.Transport], API requests carry a fresh proof each, with the
// server's nonce when it asks for one (one retry, never two). A
// TokenSource cannot add proofs and refuses a DPoP-bound token.
//
// # Client authentication
//
// [Secret] sends the client secret with HTTP Basic (both parts
// form-encoded first, RFC 6749 §2.3.1) or in the body, as the metadata's
// token_endpoint_auth_methods_supported lists (Basic when both or neither
// are listed), or as SVC_OAUTHCLIENT_AUTH_METHOD says (basic, post or
// auto). A server that lists both may still have registered the client for
// one: its invalid_client refusal ([ClientRejectedError]) names the method
// sent and how to choose the other. [PrivateKey] signs a fresh one-minute assertion with a new
// jti for every request, with go-jose: aud is the issuer and typ is
// client-authentication+jwt (RFC 7523bis) unless [AudienceTokenEndpoint]
// asks for the older form. [PrivateKeySigner] does the same with any
// crypto.Signer, so a key in a KMS, an HSM or a TPM never enters the
// process; it is called outside every lock, so a slow signer delays only
// the fetch that waits for it. [AssertionFile] sends an assertion read
// from a file at every request. [TLSClientAuth] presents the client's TLS
// certificate instead (RFC 8705 §2), and the tokens the server binds to
// it are sent over it by [Pattern.Transport].
//
// # Environment
//
//	SVC_OAUTHCLIENT_ISSUER                 issuer (discovery)
//	SVC_OAUTHCLIENT_TOKEN_ENDPOINT         token endpoint (no discovery)
//	SVC_OAUTHCLIENT_CLIENT_ID              client ID
//	SVC_OAUTHCLIENT_CLIENT_SECRET          client secret
//	SVC_OAUTHCLIENT_CLIENT_SECRET_FILE     file holding the secret, read at every fetch
//	SVC_OAUTHCLIENT_AUTH_METHOD            basic, post or auto: how the secret is sent;
//	                                       tls_client_auth or self_signed_tls_client_auth
//	SVC_OAUTHCLIENT_ASSERTION_FILE         file holding a client assertion, read at every fetch
//	SVC_OAUTHCLIENT_TLS_CERT_FILE          client certificate (PEM) for TLS client auth, read at every fetch
//	SVC_OAUTHCLIENT_TLS_KEY_FILE           its private key (PEM), read at every fetch
//	SVC_OAUTHCLIENT_TIMEOUT                per request, default 10s
//	SVC_OAUTHCLIENT_REFRESH_BEFORE         default 1m, capped at half the lifetime
//	SVC_OAUTHCLIENT_RETRY_INTERVAL         default 10s
//	SVC_CLIENTCREDENTIALS_<NAME>_AUDIENCE  per pattern; also _RESOURCE and _SCOPES
//	SVC_TOKENEXCHANGE_<NAME>_AUDIENCE      per exchange pattern; also _RESOURCE and _SCOPES
//
// Durations take Go syntax (30s) or seconds (30). Lists (audiences,
// resources, scopes) are separated by commas or spaces. <NAME> is the
// pattern name upper-cased with other characters than letters and digits
// replaced by '_'. Code options override the environment, but
// for SVC_OAUTHCLIENT_AUTH_METHOD: it fills in Secret(Auto) or a missing
// client authentication, and New fails when code chose another method.
// [WithoutEnv] ignores the environment.
//
// # Telemetry
//
// Per fetch, never per request, through the global OpenTelemetry API: the
// counter svc.oauthclient.fetches and the histogram
// svc.oauthclient.fetch.duration (seconds), with svc.oauthclient.pattern,
// svc.oauthclient.grant (client_credentials, token_exchange,
// on_behalf_of), svc.oauthclient.trigger (first, expired, refresh,
// dropped), svc.outcome (success, failure) and error.type on failure; and
// the span svc.oauthclient.fetch linked to the request that started it.
// Per refused token: the counter svc.oauthclient.refusals, with the
// pattern and error.type, the API's challenge code (invalid_token,
// insufficient_scope, invalid_request, invalid_dpop_proof, use_dpop_nonce,
// other or none). No attribute carries a token, secret, subject or server text. With
// [Logger], failed fetches are logged at warning level, once per pattern
// and error type a minute, and a pattern's recovery once at info. A
// refusal's line, like its error, carries the server's error code and its
// error_description, cut to 200 bytes, stripped of control characters and
// of every credential the request sent (see [TokenRefusedError]).
package oauthclient
