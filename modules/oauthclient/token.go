package oauthclient

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// AccessToken is a token for an outgoing call. Value is the token itself,
// to put in an Authorization header as TokenType + " " + Value (Transport
// does it for you). ExpiresAt is when it stops being served from the cache
// (zero when the server said nothing about its lifetime).
//
// Printing an AccessToken (fmt, log/slog, zap, encoding/json) shows the
// token type and "***", never the value; read Value explicitly.
type AccessToken struct {
	Value     string
	TokenType string
	ExpiresAt time.Time
}

// String hides the token value.
func (t AccessToken) String() string {
	if t.Value == "" {
		return t.TokenType
	}
	return t.TokenType + " ***"
}

// goString serves %#v without the value.
func (t AccessToken) goString() string {
	return fmt.Sprintf("oauthclient.AccessToken{Value:%q, TokenType:%q, ExpiresAt:%v}", "***", t.TokenType, t.ExpiresAt)
}

// Format applies every fmt verb to String, so %v, %+v, %s and %q never
// print the value.
func (t AccessToken) Format(f fmt.State, verb rune) {
	if verb == 'v' && f.Flag('#') {
		fmt.Fprint(f, t.goString())
		return
	}
	fmt.Fprintf(f, fmt.FormatString(f, verb), t.String())
}

// MarshalJSON writes the masked form: an AccessToken is not a wire format.
func (t AccessToken) MarshalJSON() ([]byte, error) {
	return json.Marshal(map[string]any{"token_type": t.TokenType, "value": "***", "expires_at": t.ExpiresAt})
}

// farFuture stands for "no known expiry".
var farFuture = time.Unix(1<<62, 0)

// token is a cached access token with its schedule.
type token struct {
	AccessToken
	header []string // {"Bearer <value>"} or {"DPoP <value>"}, shared by every request; never modified
	ath    string   // the proofs' ath for a DPoP-bound token; empty for a bearer token
	// cert is the client certificate the token is bound to (RFC 8705
	// §3), which every request sending it presents; nil for none.
	cert      *certificate
	refreshAt time.Time
	expiresAt time.Time
	// refreshMark is refreshAt as time since the client's epoch, which the
	// cache-hit path compares without reading the wall clock.
	refreshMark time.Duration
	gen         uint64
}

// tokenResponse is the successful token answer (RFC 6749 §5.1, RFC 8693
// §2.2.1). refresh_in is sent by some servers (Microsoft Entra) as the
// number of seconds after which the token should be refreshed.
type tokenResponse struct {
	AccessToken string  `json:"access_token"`
	TokenType   string  `json:"token_type"`
	ExpiresIn   seconds `json:"expires_in"`
	RefreshIn   seconds `json:"refresh_in"`
}

// seconds reads a JSON number or a numeric string (some servers quote
// expires_in). Anything else, or a value that is not positive, counts as
// absent rather than failing the fetch.
type seconds float64

func (s *seconds) UnmarshalJSON(b []byte) error {
	b = bytes.Trim(b, `"`)
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil || math.IsNaN(f) || f <= 0 || f > 1e9 {
		*s = 0
		return nil
	}
	*s = seconds(f)
	return nil
}

func (s seconds) duration() time.Duration { return time.Duration(float64(s) * float64(time.Second)) }

var errNotBearer = errors.New("the token_type is neither Bearer nor, with oauthclient.DPoP, DPoP")
var errNoToken = errors.New("the answer holds no usable access_token")

// newToken builds a cached token from a token answer received at now,
// over a connection that presented cert (nil for none).
func (c *Client) newToken(body []byte, now time.Time, rq *tokenRequest, cert *certificate) (*token, error) {
	var r tokenResponse
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, errNoToken
	}
	if !validTokenValue(r.AccessToken) {
		return nil, errNoToken
	}
	switch {
	case r.TokenType == "" || strings.EqualFold(r.TokenType, "bearer"):
		r.TokenType = "Bearer"
	case strings.EqualFold(r.TokenType, "dpop") && c.dpop != nil:
		r.TokenType = "DPoP"
	default:
		return nil, errNotBearer
	}
	lifetime := r.ExpiresIn.duration()
	if lifetime <= 0 {
		// Without expires_in, a JWT's own exp still tells when it ends.
		// It is read, not verified: this token is ours to send, not to
		// trust.
		if exp, ok := jwtExpiry(r.AccessToken); ok && exp.After(now) {
			lifetime = exp.Sub(now)
		}
	}
	t := &token{
		AccessToken: AccessToken{Value: r.AccessToken, TokenType: r.TokenType},
		header:      []string{r.TokenType + " " + r.AccessToken},
		expiresAt:   farFuture,
		refreshAt:   farFuture,
	}
	if r.TokenType == "DPoP" {
		t.ath = tokenHash(r.AccessToken)
	}
	if cert != nil && certBound(r.AccessToken) {
		t.cert = cert
	}
	t.header = t.header[:1:1]
	if lifetime > 0 {
		t.expiresAt = now.Add(lifetime)
		t.refreshAt = now.Add(lifetime - c.window(lifetime, r.RefreshIn.duration()))
	}
	if !rq.capExpiry.IsZero() && rq.capExpiry.Before(t.expiresAt) {
		t.expiresAt = rq.capExpiry
	}
	if rq.noRefreshAhead || t.refreshAt.After(t.expiresAt) {
		t.refreshAt = t.expiresAt
	}
	if t.expiresAt != farFuture {
		t.ExpiresAt = t.expiresAt
	}
	t.refreshMark = t.refreshAt.Sub(c.epoch)
	return t, nil
}

// window is how long before expiry a refresh may start: lifetime minus the
// server's refresh_in when it sent a usable one, else refresh_before capped
// at half the lifetime; then up to half the window earlier, at random, so
// replicas that fetched together do not refresh together.
func (c *Client) window(lifetime, refreshIn time.Duration) time.Duration {
	var w time.Duration
	if refreshIn > 0 && refreshIn < lifetime {
		w = lifetime - refreshIn
	} else {
		w = min(c.refreshBefore, lifetime/2)
	}
	return min(w+c.jitter(w/2), lifetime)
}

// validTokenValue accepts visible ASCII only, so a token can never split or
// inject a header.
func validTokenValue(v string) bool {
	if v == "" || len(v) > maxDocument {
		return false
	}
	for i := 0; i < len(v); i++ {
		if v[i] < 0x21 || v[i] > 0x7e {
			return false
		}
	}
	return true
}

// maxJWT caps the caller and issued tokens whose payload is read, before
// any splitting (the split-based blow-ups of CVE-2025-30204 and
// CVE-2025-27144).
const maxJWT = 16 << 10

// jwtPayload decodes the payload of a compact JWT, unverified, or reports
// false when tok is not one.
func jwtPayload(tok string) ([]byte, bool) {
	if len(tok) > maxJWT || strings.Count(tok, ".") != 2 {
		return nil, false
	}
	payload := tok[strings.IndexByte(tok, '.')+1 : strings.LastIndexByte(tok, '.')]
	raw, err := base64.RawURLEncoding.DecodeString(payload)
	if err != nil {
		return nil, false
	}
	return raw, true
}

// jwtExpiry reads the exp claim of a compact JWT without verifying it. It
// is used for timing only: an issued token (ours to send) and a caller
// token that the inbound gate already verified.
func jwtExpiry(tok string) (time.Time, bool) {
	raw, ok := jwtPayload(tok)
	if !ok {
		return time.Time{}, false
	}
	var claims struct {
		Exp *json.Number `json:"exp"`
	}
	if json.Unmarshal(raw, &claims) != nil || claims.Exp == nil {
		return time.Time{}, false
	}
	f, err := claims.Exp.Float64()
	if err != nil || math.IsNaN(f) || f <= 0 || f > 1<<40 {
		return time.Time{}, false
	}
	sec, frac := math.Modf(f)
	return time.Unix(int64(sec), int64(frac*1e9)), true
}
