package oauthclient

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// Grant types.
const (
	grantClientCredentials = "client_credentials"
	grantTokenExchange     = "urn:ietf:params:oauth:grant-type:token-exchange"
	grantJWTBearer         = "urn:ietf:params:oauth:grant-type:jwt-bearer"
)

// maxRetryAfter caps how long a server's Retry-After is honoured.
const maxRetryAfter = time.Hour

// minRetryAfter keeps "Retry-After: 0" from turning into a fetch loop.
const minRetryAfter = time.Second

// tokenRequest is one token to fetch.
type tokenRequest struct {
	pattern        string
	grant          string     // the grant_type form value
	kind           string     // short grant name for telemetry
	form           url.Values // the pattern's fields; client authentication is added per attempt
	trigger        string     // why the fetch runs, for telemetry
	capExpiry      time.Time  // the caller token's exp for exchanges; zero for none
	noRefreshAhead bool
	alive          time.Time         // when the slot's cached token expires; zero for none (see memo.active)
	link           trace.SpanContext // the request that started the fetch
	actor          *actorSource      // the exchange's actor token; nil for none
}

// fetch asks the token endpoint for one token. It runs on a goroutine the
// client owns; ctx is cancelled only by Close. Failures are remembered as
// the package doc's failure memory says; a failure of this one token (TokenRefusedError)
// is returned for the caller's slot to remember.
func (c *Client) fetch(ctx context.Context, rq *tokenRequest) (*token, error) {
	if err := c.memory.check(rq.grant, c.clock.Now(), rq.alive); err != nil {
		return nil, err
	}
	if rq.actor != nil && rq.actor.fetched {
		// Before taking a fetch turn: the actor's own fetch may need one.
		// Its failure was counted and logged by that fetch.
		if err := addActor(ctx, rq.actor, rq.form); err != nil {
			return nil, err
		}
	}
	if c.fetchTurns != nil {
		select {
		case c.fetchTurns <- struct{}{}:
			defer func() { <-c.fetchTurns }()
		case <-ctx.Done():
			return nil, ErrClosed
		}
	}
	start := time.Now()
	ctx, span := c.startSpan(ctx, rq)
	var (
		tok    *token
		status int
		err    error
	)
	if rq.actor != nil && !rq.actor.fetched {
		// An actor token file is this fetch's own part: its failure is
		// counted and logged with it.
		err = addActor(ctx, rq.actor, rq.form)
	}
	if err == nil {
		tok, status, err = c.fetchTokens(ctx, span, rq)
	}
	c.endFetch(ctx, span, rq, start, status, err)
	return tok, err
}

func (c *Client) fetchTokens(ctx context.Context, span trace.Span, rq *tokenRequest) (*token, int, error) {
	meta, err := c.metadata(ctx, rq.alive)
	if err != nil {
		return nil, 0, err
	}
	nonceRetried := false
	for attempt := 0; ; attempt++ {
		r, err := c.post(ctx, meta, rq)
		if err == nil && c.dpop != nil && !nonceRetried {
			if retryWithNonce(r.status, r.header, r.body, r.nonce, r.fresh) {
				// The server wants its nonce in the proof (RFC 9449
				// §8): once more with it, never a third time.
				nonceRetried = true
				span.AddEvent("svc.oauthclient.dpop_nonce")
				continue
			}
		}
		if err == nil {
			tok, err := c.answer(rq, meta, r)
			return tok, r.status, err
		}
		var ue *UnavailableError
		if attempt == 0 && errors.As(err, &ue) && ue.Reason == reasonConnection && !permanent(ue.Err) {
			// Lost before any answer: once more at once, with a fresh
			// assertion since the first may have reached the server. Not
			// a host name that does not exist or a certificate that does
			// not verify: the same request meets the same end.
			span.AddEvent("svc.oauthclient.retry")
			continue
		}
		if errors.As(err, &ue) {
			c.rememberUnavailable(ue)
		}
		return nil, 0, err
	}
}

// reply is a token endpoint's answer. nonce is the DPoP nonce the
// request's proof carried, fresh the one the answer gave; cert the client
// certificate the request presented; sent, for a refusal, the credentials
// the request carried, to scrub from the server's description.
type reply struct {
	status int
	header http.Header
	body   []byte
	nonce  string
	fresh  string
	cert   *certificate
	sent   []string
}

// post sends one token request and reads the answer.
func (c *Client) post(ctx context.Context, meta *metadata, rq *tokenRequest) (reply, error) {
	form := make(url.Values, len(rq.form)+4)
	for k, v := range rq.form {
		form[k] = v
	}
	form.Set("grant_type", rq.grant)
	// One deadline for the request, authentication included: an
	// assertion source or signer that never answers would otherwise hold
	// the flight and a fetch turn until Close.
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	header := make(http.Header, 3)
	if err := c.auth.authenticate(ctx, c, meta, header, form); err != nil {
		if c.ctx.Err() != nil {
			return reply{}, ErrClosed
		}
		return reply{}, c.rememberOwn(err)
	}
	hc := c.http
	var cert *certificate
	if c.cert != nil {
		// Read at every request, as a secret or assertion file is: a
		// rotated certificate is presented from the next fetch on.
		var err error
		if cert, err = c.cert.load(); err != nil {
			return reply{}, c.rememberOwn(err)
		}
		hc = c.tokenHTTP(cert)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, meta.tokenEndpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return reply{}, &ConfigError{Setting: clientEnvPrefix + "TOKEN_ENDPOINT", Problem: "does not form a request"}
	}
	for k, v := range header {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	// The fetch's span is the token request's client span: the server
	// sees it as the parent, in the trace of the request that waits for
	// the token, as every outbound call of the pattern carries its own.
	otel.GetTextMapPropagator().Inject(ctx, propagation.HeaderCarrier(req.Header))
	var sent string
	if c.dpop != nil {
		var proof string
		if proof, sent, err = c.dpop.proof(http.MethodPost, req.URL, ""); err != nil {
			return reply{}, c.rememberOwn(err)
		}
		req.Header.Set("Dpop", proof)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return reply{}, c.transportError(ctx, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxDocument+1))
	if err != nil {
		// The server answered, then the body broke: a server failure,
		// not a lost connection, so it is not retried.
		if c.ctx.Err() != nil {
			return reply{}, ErrClosed
		}
		if ctx.Err() != nil {
			// The body was still coming when the timeout ran out.
			return reply{}, &UnavailableError{Reason: reasonTimeout, Status: resp.StatusCode, Err: context.DeadlineExceeded}
		}
		return reply{}, &UnavailableError{Reason: reasonServerError, Status: resp.StatusCode, Err: errors.New("the answer broke off")}
	}
	if len(body) > maxDocument {
		body = nil
	}
	r := reply{status: resp.StatusCode, header: resp.Header, body: body, nonce: sent, cert: cert}
	if resp.StatusCode >= 400 {
		r.sent = sentCredentials(form, header)
	}
	if c.dpop != nil {
		r.fresh = c.dpop.note(req.URL, resp.Header)
	}
	return r, nil
}

// rememberOwn remembers a failure of the client's own part of a token
// request (an unreadable secret, assertion or certificate file, a signer
// that failed) like a server failure, so that requests do not retry it in
// a loop, and returns it.
func (c *Client) rememberOwn(err error) error {
	now := c.clock.Now()
	c.memory.rememberClient(err, now, now.Add(c.retryInterval), false)
	return err
}

// transportError classifies a request that got no answer. Its cause is the
// inner network error, never the *url.Error around it, whose message
// repeats the URL.
func (c *Client) transportError(ctx context.Context, err error) error {
	if c.ctx.Err() != nil {
		return ErrClosed
	}
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil || (errors.As(err, &ne) && ne.Timeout()) {
		return &UnavailableError{Reason: reasonTimeout, Err: context.DeadlineExceeded}
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return &UnavailableError{Reason: reasonConnection, Err: err}
}

func (c *Client) rememberUnavailable(ue *UnavailableError) {
	now := c.clock.Now()
	ue.Until = now.Add(c.retryInterval)
	if ue.RetryAfter > 0 {
		ue.Until = now.Add(ue.RetryAfter)
	}
	c.memory.rememberClient(ue, now, ue.Until, ue.RetryAfter > 0)
}

// answer turns a token endpoint answer into a token or a remembered error.
func (c *Client) answer(rq *tokenRequest, meta *metadata, r reply) (*token, error) {
	status, header, body := r.status, r.header, r.body
	now := c.clock.Now()
	if status >= 200 && status < 300 {
		tok, err := c.newToken(body, now, rq, r.cert)
		if err != nil {
			ue := &UnavailableError{Reason: reasonBadResponse, Status: status, Err: err}
			c.rememberUnavailable(ue)
			return nil, ue
		}
		return tok, nil
	}
	if status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable {
		if d, ok := c.retryAfter(header.Get("Retry-After"), now); ok {
			ue := &UnavailableError{Reason: reasonRetryAfter, Status: status, RetryAfter: d}
			c.rememberUnavailable(ue)
			return nil, ue
		}
	}
	if status < 400 || status >= 500 || status == http.StatusRequestTimeout || status == http.StatusTooManyRequests {
		ue := &UnavailableError{Reason: reasonServerError, Status: status}
		c.rememberUnavailable(ue)
		return nil, ue
	}
	code, desc := refusalBody(body, r.sent)
	until := now.Add(c.retryInterval)
	switch code {
	case "invalid_client":
		err := &ClientRejectedError{Code: code, Description: desc, Grant: rq.grant, Status: status, Method: c.auth.method(meta), Hint: c.auth.rejectHint(meta), Until: until}
		c.memory.rememberClient(err, now, until, false)
		return nil, err
	case "unauthorized_client":
		err := &ClientRejectedError{Code: code, Description: desc, Grant: rq.grant, Status: status, Method: c.auth.method(meta), Until: until,
			Hint: "the client may not use this grant: allow " + rq.grant + " for " + strconv.Quote(c.clientID) + " at the authorization server"}
		c.memory.rememberGrant(rq.grant, err, now, until)
		return nil, err
	}
	return nil, &TokenRefusedError{Pattern: rq.pattern, Grant: rq.grant, Status: status, Code: code, Description: desc, Until: until}
}

// retryAfter reads Retry-After (seconds or an HTTP date), capped at one
// hour and floored at one second.
func (c *Client) retryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	var d time.Duration
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n < 0 {
			return 0, false
		}
		d = time.Duration(min(n, int64(maxRetryAfter/time.Second))) * time.Second
	} else if t, err := http.ParseTime(v); err == nil {
		d = t.Sub(now)
	} else {
		return 0, false
	}
	return min(max(d, minRetryAfter), maxRetryAfter), true
}

// errorCode reads the OAuth error code of a refusal (see [refusalBody]).
func errorCode(body []byte) string {
	code, _ := refusalBody(body, nil)
	return code
}
