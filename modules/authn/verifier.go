package authn

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
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

// IssuerLister is implemented by verifiers that know which issuers they
// trust; the gate lists them as `authorization_servers` in the
// protected-resource metadata.
type IssuerLister interface {
	Issuers() []string
}

// DiscoveryDescriber is implemented by verifiers that may have been built by
// discovery. A non-empty DiscoveryURL lets the API schema publish an
// `openIdConnect` scheme; an empty one means no discovery (publish a bearer
// scheme).
type DiscoveryDescriber interface {
	DiscoveryURL() string
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
// It checks, in order: the size limit, the verification cache, the token's
// shape (compact JWS, canonical base64url, one JSON object per segment,
// unique member names, no crit or b64), alg against the allow-list, the key
// named by kid (its type, curve and declared alg must fit alg), the
// signature over the token's own bytes, the claim types (exp required),
// then `iss` (exact), `aud` (contains the audience), `exp`, `nbf` and
// `iat` with leeway.
//
// It is a lifecycle.Component: Open starts the background key loading and
// returns at once (it never waits for the network, so the app starts even
// when the provider is down); Close stops it.
type JWTVerifier struct {
	cfg       verifierConfig
	algs      algSet
	client    *http.Client
	err       error // the construction error, returned by Open and Verify
	keys      keySource
	cache     *verifyCache
	discovery *discovery // set by Discover
	audList   []string   // []string{audience}, shared by the claims that carry just it
	// budget bounds the fresh signature checks running at once.
	budget *verifyBudget
}

var (
	_ Verifier           = (*JWTVerifier)(nil)
	_ IssuerLister       = (*JWTVerifier)(nil)
	_ DiscoveryDescriber = (*JWTVerifier)(nil)
)

func newVerifier(issuer, audience string, opts []VerifierOption) *JWTVerifier {
	v := &JWTVerifier{cfg: defaultConfig(issuer, audience)}
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
	v.cache = newVerifyCache(v.cfg.cacheBytes, v.cfg.cacheEntries)
	v.budget = newVerifyBudget(v.cfg.maxVerifications, v.cfg.verificationWait)
	v.audList = []string{v.cfg.audience}
	v.err = errors.Join(v.cfg.problems...)
}

// Name identifies the verifier in lifecycle errors and logs.
func (v *JWTVerifier) Name() string { return "authn/verifier" }

// Open validates the settings and starts loading keys in the background.
// It returns a *ConfigError for invalid settings and never waits on the
// network.
func (v *JWTVerifier) Open(context.Context) error {
	if v.err != nil {
		return v.err
	}
	return v.keys.start()
}

// Close stops the key loader and waits for it, bounded by ctx. Keys already
// loaded stay usable.
func (v *JWTVerifier) Close(ctx context.Context) error {
	if v.err != nil {
		return nil
	}
	return v.keys.stop(ctx)
}

// Issuers returns the issuer the verifier trusts.
func (v *JWTVerifier) Issuers() []string {
	if v.cfg.issuer == "" {
		return nil
	}
	return []string{v.cfg.issuer}
}

// DiscoveryURL returns the discovery document's URL for a verifier built
// by Discover (the RFC 8414 one once discovery found the document there),
// and "" for one built by JWKSURL or KeySet.
func (v *JWTVerifier) DiscoveryURL() string {
	if v.discovery == nil {
		return ""
	}
	return v.discovery.url()
}

// Verify checks token and returns the caller it names. See JWTVerifier for
// the checks and Verifier for the errors. A token naming an unknown kid
// waits for at most one key refresh, bounded by ctx.
func (v *JWTVerifier) Verify(ctx context.Context, token string) (Principal, error) {
	if v.err != nil {
		return Principal{}, v.err
	}
	if len(token) > v.cfg.maxTokenSize {
		return Principal{}, refuse(ReasonTooLarge, errTooLarge)
	}
	now := v.cfg.clock()
	if p, ok := v.cache.get(token, now); ok {
		return p, nil
	}
	pt, terr := preparse(token, v.cfg.maxTokenSize, v.algs, v.cfg.tokenTypes...)
	if terr != nil {
		return Principal{}, terr
	}
	set := v.keys.current()
	if set == nil {
		return Principal{}, v.keys.unavailable()
	}
	var buf [maxKidlessTries]*heldKey
	cands, reason := set.candidates(pt.kid, pt.alg, buf[:0])
	if reason == ReasonUnknownKey {
		if fresh := v.keys.refresh(ctx, set); fresh != set && fresh != nil {
			cands, reason = fresh.candidates(pt.kid, pt.alg, buf[:0])
		}
	}
	switch reason {
	case ReasonUnknownKey:
		return Principal{}, refuse(reason, errUnknownKey)
	case ReasonAlgorithm:
		return Principal{}, refuse(reason, errKeyAlg)
	}
	key, err := v.checkSignature(ctx, &pt, cands)
	if err != nil {
		return Principal{}, err
	}
	if key == nil {
		return Principal{}, refuse(ReasonSignature, errSignature)
	}

	claims, scopes, err := readRegistered(pt.payload, pt.reg, v.cfg.issuer, v.audList)
	// A refused token's principal names the caller (for telemetry) but is
	// never authenticated, so it cannot be mistaken for an admitted one.
	p := Principal{Subject: claims.Subject, Issuer: claims.Issuer, Scopes: scopes, Claims: claims}
	if err != nil {
		return Principal{}, &TokenError{Reason: ReasonInvalidClaims, Signed: true, Principal: p, Err: err}
	}
	if reason, err := checkClaims(claims, v.cfg.issuer, v.cfg.audience, now, v.cfg.leeway); err != nil {
		return Principal{}, &TokenError{Reason: reason, Signed: true, Principal: p, Err: err}
	}
	p.Authenticated = true
	v.cache.put(token, p, claims.Expiry.Add(v.cfg.leeway), key, now)
	return p, nil
}

// checkSignature tries the candidate keys within the verification budget
// and returns the one that verifies, nil when none does.
func (v *JWTVerifier) checkSignature(ctx context.Context, pt *parsedToken, cands []*heldKey) (*heldKey, error) {
	if err := v.budget.acquire(ctx); err != nil {
		return nil, err
	}
	defer v.budget.release()
	for _, k := range cands {
		if verifySignature(pt.alg, k, pt.signingInput, pt.sig) {
			return k, nil
		}
	}
	return nil, nil
}

// quoteSetting quotes a value for an error message, cut to 64 bytes so a
// hostile document cannot flood a log.
func quoteSetting(s string) string {
	if len(s) > 64 {
		s = s[:64] + "…"
	}
	return strconv.Quote(s)
}
