package oauthclient

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/svckit/svc/internal/upstreamkind"
	"github.com/svckit/svc/secret"
)

// Sentinel errors. Callers compare with errors.Is.
var (
	// ErrClosed is returned once the client is closed: a fetch in flight
	// when Close ran ends with it, and so does every later call.
	ErrClosed = errors.New("oauthclient: the client is closed")

	// errCallerTokenRequired is returned by Token, and by requests sent
	// through Transport or Client, on a token-exchange pattern: an exchange
	// needs the caller's token, passed to TokenFor or TransportFor.
	errCallerTokenRequired = errors.New("oauthclient: a token-exchange pattern needs the caller's token: use TokenFor or TransportFor")

	// errNotExchange is returned by TokenFor, and by requests sent through
	// TransportFor, on a client-credentials pattern, which acts as the
	// service itself and takes no caller token.
	errNotExchange = errors.New("oauthclient: TokenFor and TransportFor need a token-exchange pattern; a client-credentials pattern uses Token, Transport or Client")

	// errDPoPTokenSource is returned by a TokenSource whose token is
	// DPoP-bound: x/oauth2 cannot add a proof to each request.
	errDPoPTokenSource = errors.New("oauthclient: the token is DPoP-bound and a TokenSource cannot add a DPoP proof to each request: use Pattern.Transport (or Pattern.Client) instead")

	// errEmptyCallerToken is returned when the caller token given to
	// TokenFor or TransportFor is empty.
	errEmptyCallerToken = errors.New("oauthclient: the caller token is empty")
)

// ConfigError reports a missing or invalid setting. New, the pattern
// constructors and Open return it; Setting names what to fix (an option or
// an environment variable).
type ConfigError struct {
	Setting string
	Problem string
}

func (e *ConfigError) Error() string {
	return "oauthclient: " + e.Setting + ": " + e.Problem
}

// DiscoveryError reports that the authorization server's metadata could not
// be used. Open returns it for answers that will not improve by waiting (no
// metadata document, a document for another issuer, no token endpoint); a
// server that is down or answers 5xx does not fail Open, the fetch retries
// discovery later and fails with an [UnavailableError] meanwhile.
type DiscoveryError struct {
	Issuer string
	Reason string
}

// Error names the issuer with any user information in its URL masked.
func (e *DiscoveryError) Error() string {
	return "oauthclient: discovery for issuer " + secret.URL(e.Issuer).String() + " (SVC_OAUTHCLIENT_ISSUER): " + e.Reason
}

// Reasons an [UnavailableError] carries (its Reason field lists them).
// They are also the values of the error.type attribute on fetch metrics
// and spans.
const (
	reasonTimeout     = "timeout"          // no (complete) answer within the timeout; not retried
	reasonConnection  = "connection"       // the connection failed or was lost before any answer, twice
	reasonServerError = "server_error"     // 5xx, 408, 429 without Retry-After, or an unexpected status
	reasonRetryAfter  = "retry_after"      // 429 or 503 with Retry-After
	reasonBadResponse = "invalid_response" // a 2xx answer that holds no usable token
	reasonAssertion   = "assertion"        // the source of [Assertion] gave no assertion
)

// UnavailableError reports that the token server could not give a token for
// a reason that concerns the whole client: it is down, too slow, failing or
// asking callers to back off, or the client's own [Assertion] source gave
// no assertion (reason assertion: the server was not contacted, and the
// message names the source). The failure is remembered for the whole
// client until Until: every fetch before then returns this error without
// contacting the server or asking the source again (a cached token is
// still served meanwhile).
type UnavailableError struct {
	// Reason says why: timeout (no complete answer within the timeout),
	// connection (the connection failed or was lost before any answer,
	// twice), server_error (5xx, 408, 429 without Retry-After, or an
	// unexpected status), retry_after (429 or 503 with Retry-After),
	// invalid_response (a 2xx answer that holds no usable token) or
	// assertion (the source given to Assertion gave no assertion).
	Reason     string
	Status     int           // HTTP status, 0 when no answer arrived
	RetryAfter time.Duration // the server's Retry-After, capped at one hour
	Until      time.Time     // no new fetch before this time
	Err        error         // the transport cause (never the server's body)
}

func (e *UnavailableError) Error() string {
	if e.Reason == reasonAssertion {
		// The token endpoint was never contacted: name what failed.
		msg := "oauthclient: the client assertion source (oauthclient.Assertion) failed"
		if e.Err != nil {
			msg += ": " + e.Err.Error()
		}
		if !e.Until.IsZero() {
			msg += "; no new fetch before " + e.Until.UTC().Format(time.RFC3339)
		}
		return msg
	}
	msg := "oauthclient: token endpoint unavailable (" + e.Reason
	if e.Status != 0 {
		msg += ", status " + strconv.Itoa(e.Status)
	}
	msg += ")"
	if e.RetryAfter > 0 {
		msg += ", Retry-After " + e.RetryAfter.String()
	}
	if !e.Until.IsZero() {
		msg += "; no new fetch before " + e.Until.UTC().Format(time.RFC3339)
	}
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

func (e *UnavailableError) Unwrap() error { return e.Err }

// retryAfterHint is how long until the client fetches again: the time left
// until Until, else the server's Retry-After; zero when neither is known.
// It becomes retry_after and Retry-After.
func (e *UnavailableError) retryAfterHint() time.Duration {
	if !e.Until.IsZero() {
		return max(time.Until(e.Until), 0)
	}
	return e.RetryAfter
}

// ClientRejectedError reports that the authorization server refused the
// client itself: invalid_client (wrong client ID or credentials; remembered
// for the whole client) or unauthorized_client (the client may not use this
// grant; remembered for that grant only). Both stay remembered until Until.
type ClientRejectedError struct {
	Code string // "invalid_client" or "unauthorized_client"
	// Description is the server's error_description, cleaned as
	// [TokenRefusedError.Description] says; empty when it sent none.
	Description string
	Grant       string // the grant_type that was refused
	Status      int
	// Method is the client authentication that was sent:
	// client_secret_basic, client_secret_post or private_key_jwt.
	Method string
	Hint   string // what to check, naming the setting
	Until  time.Time
}

func (e *ClientRejectedError) Error() string {
	msg := fmt.Sprintf("oauthclient: the authorization server rejected the client (%s, status %d, grant %s", e.Code, e.Status, e.Grant)
	if e.Method != "" {
		msg += ", sent " + e.Method
	}
	msg += ")"
	if e.Description != "" {
		msg += fmt.Sprintf(": it says %q", e.Description)
	}
	if e.Hint != "" {
		msg += ": " + e.Hint
	}
	return msg
}

// TokenRefusedError reports that the authorization server refused to issue
// one pattern's token (a 4xx other than 408 and 429, with or without an
// error code, that is not about the client itself): an unknown audience, a
// scope the client may not have, a caller token the server would not
// exchange. It is remembered for that token only until Until.
type TokenRefusedError struct {
	Pattern string
	Grant   string
	Status  int
	Code    string // the OAuth error code when the server sent a well-formed one
	// Description is the server's error_description (RFC 6749 §5.2), what
	// it says is wrong ("DPoP proof is missing"): at most 200 bytes (cut
	// with "…"), control and format characters removed, and every
	// credential the request carried (client secret or assertion, caller
	// or actor token) replaced by ***. Empty when the server sent none. It
	// reaches the error and the log line, never a caller's answer.
	Description string
	Until       time.Time
}

func (e *TokenRefusedError) Error() string {
	msg := fmt.Sprintf("oauthclient: the authorization server refused the token for %q (status %d", e.Pattern, e.Status)
	if e.Code != "" {
		msg += ", " + e.Code
	}
	msg += ")"
	if e.Description != "" {
		msg += fmt.Sprintf(": it says %q", e.Description)
	}
	return msg + ": " + refusalHint(e.Code)
}

// refusalHint says what to check for a refusal of one token, by its code.
func refusalHint(code string) string {
	switch code {
	case "invalid_request":
		return "the request lacks something the server requires or sends something it does not accept (a DPoP proof, an actor token, a parameter)"
	case "invalid_scope":
		return "check the pattern's scopes"
	case "invalid_target":
		return "check the pattern's audience and resource"
	case "invalid_grant":
		return "the server would not accept the grant (for an exchange, the caller's token or the actor's)"
	}
	return "check the pattern's audience, resource and scopes"
}

func init() { upstreamkind.Register(upstreamKind) }

// upstreamKind names the answer a handler returning err gives, for
// svcerrors (which this package does not import; docs/errors.md documents
// both): an [UnavailableError] 503 upstream-token-unavailable, as retrying
// later can help; a [ClientRejectedError], [TokenRefusedError] or
// [DiscoveryError] 502 upstream-token-refused, as waiting does not fix
// them; a [BulkheadFullError] 503 bulkhead-full, with no retry hint; a
// [CircuitOpenError] 503 circuit-breaker-open, with the time until the
// breaker's probe. Any other error is not named.
func upstreamKind(err error) (anchor string, retryAfter time.Duration, ok bool) {
	var co *CircuitOpenError
	if errors.As(err, &co) {
		return upstreamkind.CircuitBreakerOpen, co.RetryAfter, true
	}
	var ue *UnavailableError
	if errors.As(err, &ue) {
		return upstreamkind.Unavailable, ue.retryAfterHint(), true
	}
	var cr *ClientRejectedError
	var tr *TokenRefusedError
	var de *DiscoveryError
	if errors.As(err, &cr) || errors.As(err, &tr) || errors.As(err, &de) {
		return upstreamkind.Refused, 0, true
	}
	var bf *BulkheadFullError
	if errors.As(err, &bf) {
		return upstreamkind.BulkheadFull, 0, true
	}
	return "", 0, false
}

// registeredCodes are the token endpoint's error codes of RFC 6749 §5.2,
// RFC 8693 §2.2.2 and the two of §4.1.2.1 servers also send there:
// error.type carries one of these or none, whatever the server writes.
var registeredCodes = map[string]bool{
	"invalid_request":         true,
	"invalid_client":          true,
	"invalid_grant":           true,
	"unauthorized_client":     true,
	"unsupported_grant_type":  true,
	"invalid_scope":           true,
	"invalid_target":          true,
	"server_error":            true,
	"temporarily_unavailable": true,
}

// errorType names an error for the error.type attribute of metrics, spans
// and logs. It never includes text from the server, and a code only from
// registeredCodes.
func errorType(err error) string {
	var ue *UnavailableError
	var cr *ClientRejectedError
	var tr *TokenRefusedError
	var ce *ConfigError
	var de *DiscoveryError
	switch {
	case errors.As(err, &ue):
		return ue.Reason
	case errors.As(err, &cr):
		return cr.Code
	case errors.As(err, &tr):
		if registeredCodes[tr.Code] {
			return tr.Code
		}
		// A code the server made up would be a new metric series each
		// time it varied it.
		return "refused"
	case errors.As(err, &ce):
		return "config"
	case errors.As(err, &de):
		return "discovery"
	case errors.Is(err, ErrClosed):
		return "closed"
	}
	return "other"
}
