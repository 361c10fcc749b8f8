package oauthclient

import (
	"io"
	"net/http"
	"strings"
)

// Transport returns a RoundTripper that sends every request through base
// (http.DefaultTransport when nil) with the pattern's token in an
// Authorization header, replacing any the request had.
//
// When the API answers 401 with WWW-Authenticate: Bearer
// error="invalid_token", the cached token is dropped (at most once per
// retry interval; refusals arriving together share one fetch) and the
// request is sent once more with a fresh token — whatever its method,
// since a 401 means the API did not act on it, and only when the body can
// be sent twice (no body, or Request.GetBody set, as http.NewRequest does
// for in-memory bodies); never a third time, and not when the fetch hands
// back the token just refused. Otherwise the 401 is returned to the
// caller.
//
// A DPoP-bound token (see [DPoP]) is sent as Authorization: DPoP with a
// fresh proof for each request: htm and htu of the request (query and
// fragment left out), ath the token's hash, and the API's last nonce. An
// API's 401 with WWW-Authenticate: DPoP error="use_dpop_nonce" and a new
// DPoP-Nonce is answered by sending the request once more with that nonce
// — any method, when the body can be sent twice; never a third time. Its
// DPoP error="invalid_token" drops the token as the Bearer one does.
//
// A token bound to the client certificate ([TLSClientAuth], RFC 8705 §3)
// is sent over a clone of base that presents the certificate the token
// was fetched with; base must then be nil or an *http.Transport, else the
// request fails with an error saying so. Unbound tokens go through base
// as it is.
//
// A redirect that http.Client follows to another host (or from https to
// http) is sent without the token, as net/http sends it without the
// caller's own Authorization header.
//
// A request whose token cannot be had fails with the error of
// [Pattern.Token]; on a token-exchange pattern, with
// [errCallerTokenRequired].
//
// On a pattern built with [Resilience], requests are retried and each
// host's circuit breaker may refuse them unsent, as its doc says.
//
// Every request sent carries the trace of its context: a client span
// named by its method (HTTP client semantic conventions; a repeated
// request gets its own), the W3C traceparent, tracestate and baggage
// headers, and the HTTP client metrics (http.client.request.duration, ...)
// — through the global tracer provider, propagator and meter provider, so
// at no cost beyond the headers when none is installed. A token fetched
// because the request waits for it is a child of the request's span.
func (p *Pattern) Transport(base http.RoundTripper) http.RoundTripper {
	return p.withResilience(&transport{p: p, raw: base, base: p.traced(base)})
}

// TransportFor is [Pattern.Transport] for a token-exchange pattern: every
// request carries a token exchanged for callerToken (the caller's verified
// token, authn.TokenFrom(ctx) inbound; never read from the request's
// context). Build one per inbound request. On a client-credentials pattern
// requests fail with [errNotExchange]. A token exchanged for a caller token
// without exp is not cached, so a 401 for it is returned as it is.
func (p *Pattern) TransportFor(callerToken string, base http.RoundTripper) http.RoundTripper {
	return p.withResilience(&transport{p: p, raw: base, base: p.traced(base), caller: callerToken, exchange: true})
}

// Client returns an http.Client whose requests carry the pattern's token
// (Transport over http.DefaultTransport). The same client is returned on
// every call.
func (p *Pattern) Client() *http.Client {
	p.hcOnce.Do(func() { p.hc = &http.Client{Transport: p.Transport(nil)} })
	return p.hc
}

// ClientFor returns an http.Client whose requests carry a token exchanged
// for callerToken (TransportFor over http.DefaultTransport).
func (p *Pattern) ClientFor(callerToken string) *http.Client {
	return &http.Client{Transport: p.TransportFor(callerToken, nil)}
}

type transport struct {
	p        *Pattern
	raw      http.RoundTripper // the caller's base; nil for http.DefaultTransport
	base     http.RoundTripper // raw, traced
	caller   string
	exchange bool
}

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	bh := &t.p.bulkhead
	if !bh.enter() {
		closeBody(req.Body)
		return nil, &BulkheadFullError{Pattern: t.p.name, Limit: int(bh.limit)}
	}
	resp, err := t.roundTrip(req)
	if err != nil {
		bh.leave()
		return nil, err
	}
	bh.holdUntilClosed(resp)
	return resp, nil
}

func (t *transport) roundTrip(req *http.Request) (*http.Response, error) {
	if redirectedAway(req) {
		// net/http dropped the caller's own Authorization for this hop;
		// the token must not reach that host either (RFC 6750 §5.3).
		return t.base.RoundTrip(req)
	}
	tok, s, err := t.p.token(req.Context(), t.caller, t.exchange)
	if err != nil {
		closeBody(req.Body)
		return nil, err
	}
	resp, err := t.send(req, tok)
	if err != nil || resp.StatusCode != http.StatusUnauthorized || s == nil || challengeError(resp.Header, tok.TokenType) != "invalid_token" {
		return resp, err
	}
	c := t.p.client
	if !s.invalidate(tok, c.clock.Now(), c.retryInterval) {
		return resp, nil
	}
	body, ok := replayBody(req)
	if !ok {
		return resp, nil
	}
	fresh, _, err := t.p.token(req.Context(), t.caller, t.exchange)
	if err != nil || fresh.Value == tok.Value {
		// No other token: the one refused would only be refused again.
		// Compared by value, not by fetch: servers that hand back the
		// token they issued last, until it expires, do so on a refetch.
		closeBody(body)
		return resp, nil
	}
	drain(resp)
	again := *req
	again.Body = body
	return t.send(&again, fresh)
}

// roundTripper is what sends tok: the base, or for a token bound to the
// client certificate, the base presenting that certificate.
func (t *transport) roundTripper(tok *token) (http.RoundTripper, error) {
	if tok.cert == nil {
		return t.base, nil
	}
	return t.p.client.boundTransport(t.raw, tok.cert)
}

// send sends req with tok in its Authorization header and, for a
// DPoP-bound token, a fresh proof; when the API answers use_dpop_nonce
// with a new nonce (RFC 9449 §9) and the body can be sent again, it sends
// the request once more with a proof carrying that nonce.
func (t *transport) send(req *http.Request, tok *token) (*http.Response, error) {
	base, err := t.roundTripper(tok)
	if err != nil {
		closeBody(req.Body)
		return nil, err
	}
	r, sent, err := t.authorized(req, tok)
	if err != nil {
		closeBody(req.Body)
		return nil, err
	}
	resp, err := base.RoundTrip(r)
	if err != nil {
		return resp, err
	}
	t.p.countRefusal(req.Context(), resp, tok.TokenType)
	if tok.ath == "" {
		return resp, nil
	}
	k := t.p.client.dpop
	if !retryWithNonce(resp.StatusCode, resp.Header, nil, sent, k.note(req.URL, resp.Header)) {
		return resp, nil
	}
	body, ok := replayBody(req)
	if !ok {
		return resp, nil
	}
	again := *req
	again.Body = body
	if r, _, err = t.authorized(&again, tok); err != nil {
		closeBody(body)
		return resp, nil
	}
	drain(resp)
	resp, err = base.RoundTrip(r)
	if err == nil {
		k.note(req.URL, resp.Header)
		t.p.countRefusal(req.Context(), resp, tok.TokenType)
	}
	return resp, err
}

func closeBody(b io.ReadCloser) {
	if b != nil {
		b.Close()
	}
}

// redirectedAway reports whether req is a redirect hop (http.Client sets
// Response on those) to another host than the request the caller made, or
// from https down to http.
func redirectedAway(req *http.Request) bool {
	first := req
	for first.Response != nil && first.Response.Request != nil {
		first = first.Response.Request
	}
	if first == req || first.URL == nil || req.URL == nil {
		return false
	}
	return !strings.EqualFold(first.URL.Host, req.URL.Host) || first.URL.Scheme == "https" && req.URL.Scheme != "https"
}

// authorized is a shallow copy of req with the token's Authorization
// header and, for a DPoP-bound token, a DPoP proof for this request; it
// returns the nonce the proof carries. The header map is copied (a
// RoundTripper must not modify its request); its value slices are shared,
// as no transport writes them.
func (t *transport) authorized(req *http.Request, tok *token) (*http.Request, string, error) {
	r := new(http.Request)
	*r = *req
	h := make(http.Header, len(req.Header)+2)
	for k, v := range req.Header {
		h[k] = v
	}
	h["Authorization"] = tok.header
	var nonce string
	if tok.ath != "" {
		proof, sent, err := t.p.client.dpop.proof(req.Method, req.URL, tok.ath)
		if err != nil {
			return nil, "", err
		}
		h["Dpop"], nonce = []string{proof}, sent
	}
	r.Header = h
	return r, nonce, nil
}

// replayBody returns a fresh copy of req's body, or reports false when the
// body cannot be sent twice.
func replayBody(req *http.Request) (io.ReadCloser, bool) {
	if req.Body == nil || req.Body == http.NoBody {
		return req.Body, true
	}
	if req.GetBody == nil {
		return nil, false
	}
	b, err := req.GetBody()
	if err != nil {
		return nil, false
	}
	return b, true
}

// drain reads a little of a response being thrown away so its connection
// can be reused, then closes it.
func drain(resp *http.Response) {
	io.CopyN(io.Discard, resp.Body, 4<<10)
	resp.Body.Close()
}

// challengeError returns the error parameter of a WWW-Authenticate
// challenge for scheme (RFC 6750 §3, RFC 9449 §7.1), or "" when there is
// none. The parser is lenient: it never fails, it only looks for that one
// parameter.
func challengeError(h http.Header, scheme string) string {
	for _, v := range h.Values("Www-Authenticate") {
		current := ""
		for rest := v; rest != ""; {
			rest = strings.TrimLeft(rest, " \t,")
			name, after := cutToken(rest)
			if name == "" {
				// Not a token: skip one byte and read on.
				if rest != "" {
					rest = rest[1:]
				}
				continue
			}
			after = strings.TrimLeft(after, " \t")
			if !strings.HasPrefix(after, "=") {
				current, rest = name, after
				continue
			}
			value, more := cutValue(strings.TrimLeft(after[1:], " \t"))
			rest = more
			if strings.EqualFold(current, scheme) && strings.EqualFold(name, "error") && value != "" {
				return value
			}
		}
	}
	return ""
}

// cutToken splits an RFC 9110 token off the front of s.
func cutToken(s string) (string, string) {
	i := 0
	for i < len(s) && isTokenChar(s[i]) {
		i++
	}
	return s[:i], s[i:]
}

// cutValue splits a token or a quoted string off the front of s.
func cutValue(s string) (string, string) {
	if !strings.HasPrefix(s, `"`) {
		return cutToken(s)
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i])
			}
		case '"':
			return b.String(), s[i+1:]
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String(), ""
}

func isTokenChar(c byte) bool {
	if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}
