// Package authnoidc lets an app that already verifies tokens with
// coreos/go-oidc hand its *oidc.IDTokenVerifier to the authentication gate.
//
// svc verifies tokens itself (bearer.Discover) rather than through go-oidc
// because a resource server needs what an OIDC client library does not
// give: go-oidc's RemoteKeySet fetches again on every unknown `kid` with no
// bound (a forger can make it fetch per request), loads keys on first use
// so that a provider outage becomes slow failures instead of a prompt 503,
// accepts RSA-PSS signatures whose salt length differs from the hash
// length, leaves duplicate JSON members to the last one, and checks ID
// token rules (`aud` is the client ID, `exp` past by any margin) rather
// than the access-token rules of RFC 9068 (`typ`, leeway, required `exp`,
// scopes). Prefer bearer.Discover for access tokens; use this adapter where
// go-oidc's verifier is what the app already trusts.
package authnoidc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/coreos/go-oidc/v3/oidc"

	"github.com/svckit/svc/modules/authn/bearer"
)

// Verifier adapts v to bearer.Verifier. Refusals become *bearer.TokenError
// with the closest reason: expired, issuer, audience, not-yet-valid,
// malformed, and signature (which counts toward bans) for a signature that
// does not verify with a key go-oidc holds. A key set go-oidc cannot fetch
// answers bearer.ErrKeysUnavailable (503), so an outage never bans callers.
// go-oidc reports most failures as text only, so the reasons are read from
// its messages; anything unrecognised is refused as malformed.
func Verifier(v *oidc.IDTokenVerifier) bearer.Verifier { return verifier{v: v} }

type verifier struct{ v *oidc.IDTokenVerifier }

func (a verifier) Verify(ctx context.Context, token string) (bearer.Principal, error) {
	idt, err := a.v.Verify(ctx, token)
	if err != nil {
		return bearer.Principal{}, refusal(err)
	}
	claims := &bearer.Claims{
		Issuer:   idt.Issuer,
		Subject:  idt.Subject,
		Audience: idt.Audience,
		Expiry:   idt.Expiry,
		IssuedAt: idt.IssuedAt,
	}
	var raw map[string]json.RawMessage
	if err := idt.Claims(&raw); err != nil {
		return bearer.Principal{}, &bearer.TokenError{Reason: bearer.ReasonInvalidClaims, Signed: true, Err: err}
	}
	claims.Raw = raw
	var scopes []string
	if s, ok := raw["scope"]; ok {
		var str string
		if err := json.Unmarshal(s, &str); err != nil {
			return bearer.Principal{}, &bearer.TokenError{Reason: bearer.ReasonInvalidClaims, Signed: true, Err: fmt.Errorf("authnoidc: scope is not a string: %w", err)}
		}
		scopes = strings.Split(str, " ")
	}
	return bearer.Principal{
		Subject:       idt.Subject,
		Issuer:        idt.Issuer,
		Scopes:        bearer.NewScopes(scopes...),
		Claims:        claims,
		Authenticated: true,
	}, nil
}

func refusal(err error) error {
	var expired *oidc.TokenExpiredError
	if errors.As(err, &expired) {
		return &bearer.TokenError{Reason: bearer.ReasonExpired, Signed: true, Err: err}
	}
	msg := err.Error()
	switch {
	case strings.Contains(msg, "fetching keys"), strings.Contains(msg, "get keys failed"):
		return fmt.Errorf("authnoidc: %w: %v", bearer.ErrKeysUnavailable, err)
	case strings.HasPrefix(msg, "failed to verify signature"):
		return &bearer.TokenError{Reason: bearer.ReasonSignature, Err: err}
	case strings.Contains(msg, "issued by a different provider"):
		return &bearer.TokenError{Reason: bearer.ReasonIssuer, Signed: true, Err: err}
	case strings.Contains(msg, "expected audience"):
		return &bearer.TokenError{Reason: bearer.ReasonAudience, Signed: true, Err: err}
	case strings.Contains(msg, "before the nbf"):
		return &bearer.TokenError{Reason: bearer.ReasonNotYetValid, Signed: true, Err: err}
	}
	return &bearer.TokenError{Reason: bearer.ReasonMalformed, Err: err}
}
