package bearer

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
)

// Verifier verifies a bearer token. Any type with this method is accepted
// by the gate.
//
// Verify returns the caller the token names, or an error: a *TokenError
// for a token that does not verify (the gate answers 401 token-rejected
// with its Reason), an error wrapping ErrKeysUnavailable while keys are not
// loaded (503 signing-keys-unavailable), an error wrapping ErrBusy when a
// fresh verification waited too long for its turn (503 bulkhead-full with
// Retry-After, never counted toward bans), and anything else for a failure
// of the verifier itself (500). It must be safe for concurrent use.
type Verifier interface {
	Verify(ctx context.Context, token string) (Principal, error)
}

// ConfigError is a verifier built with invalid settings. It is returned by
// Open and by every Verify, so a misconfigured verifier never accepts a
// token and never panics. Setting names what to fix.
type ConfigError struct {
	Setting string
	Problem string
}

func (e *ConfigError) Error() string {
	return fmt.Sprintf("authn: verifier setting %s %s", e.Setting, e.Problem)
}

// JWTVerifier verifies JWT access tokens signed with asymmetric keys. Build
// one with Discover, JWKSURL or KeySet.
//
// It checks, in order: the verification cache, the size limit and the
// token's shape (compact JWS, canonical base64url), the header (one JSON
// object, unique member names, no crit or b64, alg against the
// allow-list), the key named by kid (its type, curve and declared alg must
// fit alg), the signature over the token's own bytes, then the payload
// (one JSON object, unique member names), the claim types (exp required),
// `iss` (exact), `aud` (contains the audience), `exp`, `nbf` and `iat`
// with leeway. Verify lists the steps and their files.
//
// Open starts the background key loading (fxsvc.Authn opens and closes it
// with the app) and returns at once (it never waits for the network, so the app starts even
// when the provider is down); Close stops it.
type JWTVerifier struct {
	cfg       verifierConfig
	algs      algSet
	client    *http.Client
	err       error // the construction error, returned by Open and Verify
	keys      keySource
	set       atomic.Pointer[keySet] // the keys in use, nil before the first load
	cache     *verifyCache
	discovery *discovery // set by Discover
	tenants   *tenantSet // set by Discover for an issuer template
	audList   []string   // []string{audience}, shared by the claims that carry just it
	// payloadWords are the strings a payload is expected to hold, read
	// without allocating: the issuer and the audience.
	payloadWords []string
	// budget bounds the fresh signature checks running at once.
	budget *verifyBudget
	intro  *introspector // set by Introspect
	// label names the issuer in metrics and security records (labelOf),
	// computed once here so that the gate reads it without allocating.
	label string
}

var _ Verifier = (*JWTVerifier)(nil)

func newVerifier(issuer, audience string, opts []VerifierOption) *JWTVerifier {
	v := &JWTVerifier{cfg: defaultConfig(issuer, audience), label: labelOf(issuer)}
	for _, opt := range opts {
		if opt != nil {
			opt(&v.cfg)
		}
	}
	switch {
	case strings.TrimSpace(audience) == "":
		v.cfg.refuse("audience", "is empty; pass the audience your tokens carry in aud (often this API's URL)")
	case strings.TrimSpace(audience) != audience:
		// aud is compared exactly: no token would ever match.
		v.cfg.refuse("audience", "has leading or trailing spaces")
	}
	return v
}

// finish settles the derived settings and the construction error.
func (v *JWTVerifier) finish() {
	v.algs = defaultAlgs()
	if len(v.cfg.algorithms) > 0 {
		v.algs = 0
		for _, name := range v.cfg.algorithms {
			a, _ := algByName(name)
			v.algs |= 1 << a
		}
	}
	v.client = v.cfg.httpClient
	if v.client == nil {
		v.client = defaultHTTPClient()
	}
	v.cache = newVerifyCache(v.cfg.cacheBytes)
	if v.cache != nil {
		v.cache.longest = v.cfg.maxTokenSize
	}
	v.budget = newVerifyBudget(v.cfg.maxVerifications, v.cfg.verificationWait)
	v.audList = []string{v.cfg.audience}
	v.payloadWords = []string{v.cfg.issuer, v.cfg.audience}
	v.intro = newIntrospector(v)
	v.err = errors.Join(v.cfg.problems...)
}

// Open validates the settings and starts loading keys in the background.
// It returns a *ConfigError for invalid settings and never waits on the
// network.
func (v *JWTVerifier) Open(context.Context) error {
	if v.err != nil {
		return v.err
	}
	if v.intro != nil {
		v.intro.openShared()
	}
	return v.keys.start()
}

// Close stops the key loader and waits for it, bounded by ctx. Keys already
// loaded stay usable.
func (v *JWTVerifier) Close(ctx context.Context) error {
	if v.err != nil {
		return nil
	}
	v.intro.close()
	return v.keys.stop(ctx)
}

// Issuers returns the issuer the verifier trusts; for an issuer template,
// the issuers of the tenants Tenants names, or for AnyTenant the template
// itself (no tenant is named; Entra's multi-tenant discovery document
// names the same string as its issuer). The gate lists them as the
// protected-resource metadata's authorization_servers.
func (v *JWTVerifier) Issuers() []string {
	if v.tenants != nil {
		return v.tenants.issuers()
	}
	if v.cfg.issuer == "" {
		return nil
	}
	return []string{v.cfg.issuer}
}

// discoveryURL returns the discovery document's URL for a verifier built
// by Discover (the RFC 8414 one once discovery found the document there),
// and "" for one built by JWKSURL or KeySet. The start line and the API
// document name it.
func (v *JWTVerifier) discoveryURL() string {
	if v.discovery == nil {
		return ""
	}
	return v.discovery.url()
}

// quoteSetting quotes a value for an error message, cut to 64 bytes so a
// hostile document cannot flood a log.
func quoteSetting(s string) string {
	if len(s) > 64 {
		s = s[:64] + "…"
	}
	return strconv.Quote(s)
}
