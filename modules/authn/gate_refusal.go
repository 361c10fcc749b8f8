package authn

import (
	"net/http"
	"strings"
	"time"

	"github.com/svckit/svc/modules/authn/bearer"
	svcerrors "github.com/svckit/svc/modules/errors"
)

// RefusalKind is the `type` anchor of an authentication refusal and, except
// for token-rejected, its error word in telemetry.
type RefusalKind string

// The refusal kinds: RFC 6750 §3.1 errors and the answers of
// docs/errors.md (docs/authn.md's refusal table lists them).
const (
	KindAuthenticationRequired RefusalKind = "authentication-required" // 401, Bearer
	KindTokenRejected          RefusalKind = "token-rejected"          // 401, error="invalid_token", with reason
	KindAmbiguousCredentials   RefusalKind = "ambiguous-credentials"   // 400, error="invalid_request"
	KindInsufficientScope      RefusalKind = "insufficient-scope"      // 403, error="insufficient_scope", scope=
	KindClientBanned           RefusalKind = "client-banned"           // 429, Retry-After
	KindKeysUnavailable        RefusalKind = "signing-keys-unavailable"
	// KindVerifierBusy is the verifier's budget of fresh verifications
	// overflowing (bearer.ErrBusy): 503 with Retry-After, under the error
	// format's own anchor for a full concurrency limit (bulkheadFull's).
	KindVerifierBusy RefusalKind = "bulkhead-full"
	// KindIntrospectionUnavailable is an opaque token that could not be
	// introspected (bearer.ErrIntrospectionUnavailable): 503 with
	// Retry-After, the token not judged.
	KindIntrospectionUnavailable RefusalKind = "introspection-unavailable"
)

// bulkheadFull is the error format's kind for a full concurrency limit,
// whose status and title a busy verifier shares.
var bulkheadFull = (&svcerrors.BulkheadFull{}).Describe().Kind

// busyRetryAfter is the Retry-After of KindVerifierBusy: a verification
// takes well under a second, so a queue full now has moved on by then.
const busyRetryAfter = time.Second

// Refusal is the gate's answer to a request it turns away. It is a
// svcerrors.Rejection: the registered error format renders it, with the
// RFC 6750 challenge in WWW-Authenticate. An app may answer it its own way
// with svcerrors.On[*authn.Refusal].
type Refusal struct {
	Kind RefusalKind
	// Reason says why a token was rejected (KindTokenRejected only).
	Reason bearer.Reason
	// Scopes are the scopes the route requires (KindInsufficientScope;
	// KindAuthenticationRequired and KindTokenRejected name them too).
	Scopes []string
	// Roles are the roles the route requires that the caller lacks
	// (KindInsufficientRole).
	Roles []string
	// RetryAfter is how long a banned caller must wait (KindClientBanned),
	// or how long to wait before retrying (KindVerifierBusy,
	// KindIntrospectionUnavailable).
	RetryAfter time.Duration
	// ACRValues and MaxAge are the route's step-up
	// (KindInsufficientUserAuthentication): the acr values it accepts (none
	// when any), the oldest authentication it accepts (0 when any).
	ACRValues []string
	MaxAge    time.Duration
	// claims is the base64 claims of a claims challenge (ClaimsChallenge).
	claims string
	// authority is where the claims can be obtained, written before them
	// (ClaimsChallengeAuthority); nil for none.
	authority *challengeAuthority
	// resourceMetadata is the metadata URL every Bearer challenge names when
	// the gate has a Resource.
	resourceMetadata string
	// dpop is the DPoP challenge, when the gate takes DPoP (gate_dpop.go).
	dpop *dpopChallenge
	// detail, when set, is the body's detail in place of the reason's.
	detail string
	// audience is what an audience refusal records (gate_audience.go),
	// never what it answers.
	audience *audienceDiagnosis
}

func (r *Refusal) Error() string {
	if r.Kind == KindTokenRejected {
		return "authn: refused: " + string(r.Kind) + " (" + string(r.Reason) + ")"
	}
	return "authn: refused: " + string(r.Kind)
}

// word is the refusal's error word: the body's reason for a rejected token,
// else its kind. It is the error.type of security records and metrics.
func (r *Refusal) word() string {
	if r.Kind == KindTokenRejected && r.Reason != "" {
		return string(r.Reason)
	}
	return string(r.Kind)
}

type refusalText struct {
	status        int
	title, detail string
}

var refusalTexts = map[RefusalKind]refusalText{
	KindAuthenticationRequired: {http.StatusUnauthorized, "Authentication required",
		"This resource requires a bearer token in the Authorization header."},
	KindTokenRejected: {http.StatusUnauthorized, "Token rejected",
		"The bearer token did not verify; see reason. Get a new token rather than retrying this one."},
	KindAmbiguousCredentials: {http.StatusBadRequest, "Ambiguous credentials",
		"The request carried more than one credential. Send exactly one, in the Authorization header."},
	KindInsufficientScope: {http.StatusForbidden, "Insufficient scope",
		"The token does not grant a scope this resource requires; see the scope in WWW-Authenticate."},
	KindClientBanned: {http.StatusTooManyRequests, "Client banned",
		"This client is refused for a while. Retry after the time given."},
	KindKeysUnavailable: {http.StatusServiceUnavailable, "Signing keys unavailable",
		"The service cannot verify tokens yet. Retry shortly."},
	KindVerifierBusy: {bulkheadFull.Status, bulkheadFull.Title,
		"The service is verifying as many new tokens as it can. Retry after the time given."},
	KindInsufficientUserAuthentication: {http.StatusUnauthorized, "Insufficient user authentication",
		"The user's authentication is not strong or recent enough for this resource. Authenticate again as WWW-Authenticate's acr_values and max_age ask, then retry with the new token."},
	kindInsufficientClaims: {http.StatusUnauthorized, "Insufficient claims",
		"The token lacks claims this resource requires. Get a new token asking for the claims in WWW-Authenticate, then retry with it."},
	KindActorRefused: {http.StatusForbidden, "Actor refused",
		"The token names a party acting for its subject that this service does not accept."},
	KindIssuerRefused: {http.StatusForbidden, "Issuer refused",
		"This resource serves callers of other issuers than the one that issued the token. Get a token from an issuer it accepts."},
	KindInsufficientRole: {http.StatusForbidden, "Insufficient role",
		"The caller lacks a role this resource requires."},
	KindIntrospectionUnavailable: {http.StatusServiceUnavailable, "Token introspection unavailable",
		"The service could not ask the token's issuer about it. Retry after the time given."},
}

// status is the HTTP status of the refusal.
func (r *Refusal) status() int { return refusalTexts[r.Kind].status }

// Describe implements svcerrors.Rejection.
func (r *Refusal) Describe() svcerrors.Description {
	t := refusalTexts[r.Kind]
	d := svcerrors.Description{
		Kind:       svcerrors.Kind{Status: t.status, Anchor: string(r.Kind), Title: t.title, Detail: t.detail},
		RetryAfter: r.RetryAfter,
	}
	if r.Kind == KindTokenRejected {
		d.Detail = "The bearer token did not verify (" + string(r.Reason) + "). Get a new token rather than retrying this one."
		switch r.Reason {
		case ReasonCertificateBinding:
			d.Detail = "The token is bound to a client certificate this request did not come with. Send it over the connection with that certificate."
		case bearer.ReasonUnknownKey:
			// The issuer may have just rotated its keys: the verifier
			// fetches them again within its rotation cooldown, so the same
			// token is likely to verify shortly, and a new one would name
			// the same key.
			d.Detail = "The bearer token names a signing key this service does not hold yet (unknown-key); the issuer may have just rotated its keys. Retry the same token in a few seconds."
		}
		if r.detail != "" {
			d.Detail = r.detail
		}
		d.Extensions = []svcerrors.Member{{Name: "reason", Value: string(r.Reason)}}
	}
	if r.Kind == KindInsufficientUserAuthentication {
		d.Extensions = r.stepUpMembers()
	}
	if r.Kind == KindInsufficientRole {
		r.describeRole(&d)
	}
	if c := r.challenge(); c != "" {
		d.Header = http.Header{"Www-Authenticate": {c}}
	}
	if r.dpop != nil {
		r.dpop.describe(&d, r.Reason, r.scopeParam())
	}
	return d
}

// challenge is the WWW-Authenticate value (RFC 6750 §3): never the token,
// and an error_description only for a step-up (RFC 9470 §3's). Empty for
// refusals that carry none.
func (r *Refusal) challenge() string {
	var params []string
	switch r.Kind {
	case KindAuthenticationRequired:
	case KindTokenRejected:
		params = append(params, `error="invalid_token"`)
	case KindAmbiguousCredentials:
		params = append(params, `error="invalid_request"`)
	case KindInsufficientScope:
		params = append(params, `error="insufficient_scope"`)
		if len(r.Scopes) > 0 {
			params = append(params, `scope="`+strings.Join(r.Scopes, " ")+`"`)
		}
	case KindInsufficientUserAuthentication:
		params = r.stepUpParams()
	case kindInsufficientClaims:
		if a := r.authority; a != nil {
			params = append(params, "realm="+a.realm, "authorization_uri="+a.authorizationURI)
		}
		params = append(params, `error="insufficient_claims"`, `claims="`+r.claims+`"`)
	default:
		return ""
	}
	params = append(params, r.scopeParam()...)
	if r.resourceMetadata != "" {
		params = append(params, `resource_metadata="`+r.resourceMetadata+`"`)
	}
	if len(params) == 0 {
		return "Bearer"
	}
	return "Bearer " + strings.Join(params, ", ")
}

// naming returns a copy of r whose Bearer challenge names the metadata URL.
func (r *Refusal) naming(metadataURL string) *Refusal {
	own := *r
	own.resourceMetadata = metadataURL
	return &own
}
