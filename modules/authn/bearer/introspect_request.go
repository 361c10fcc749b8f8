package bearer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/svckit/svc/secret"
)

// Media types of RFC 7662 and RFC 9701 answers.
const (
	mediaJSON          = "application/json"
	mediaIntrospection = "application/token-introspection+jwt"
)

// introspectionAccept asks for a signed answer and takes a plain one.
const introspectionAccept = mediaIntrospection + ", " + mediaJSON + ";q=0.9"

// received is an answer as the endpoint sent it: the body, and whether it
// is an RFC 9701 signed answer (a JWT) rather than plain JSON. It is what
// the shared store keeps, so that a replica reading it judges it as the
// one that asked did.
type received struct {
	body   []byte
	signed bool
	iat    int64 // a signed answer's iat once judged, 0 for none
}

// ask sends one introspection request for token and judges the answer:
// the answer as received, the principal and until when it may be cached,
// a *TokenError for a token the answer refuses, an error wrapping ErrBusy
// when no slot of the verification budget came for the request, or an
// error wrapping ErrIntrospectionUnavailable when there is no usable
// answer. The request holds a slot of the budget (MaxConcurrentVerifications)
// while it is sent and read, not while a signed answer is verified (which
// takes a slot of its own). No error quotes the token, a credential, or the
// endpoint's query (it has none).
func (in *introspector) ask(ctx context.Context, f *flight, token string, now time.Time) (received, Principal, time.Time, error) {
	endpoint := in.target()
	if endpoint == "" {
		// Discovery has not succeeded: the key loader's error says why
		// (still running, the provider down, or a document without a
		// usable introspection_endpoint), and it is the error's cause.
		return received{}, Principal{}, time.Time{}, fmt.Errorf("%w: the introspection endpoint is not known: discovery, which names it, has not succeeded: %w", ErrIntrospectionUnavailable, in.v.keys.unavailable())
	}
	if err := in.v.budget.acquire(ctx); err != nil {
		return received{}, Principal{}, time.Time{}, err
	}
	if err := context.Cause(ctx); err != nil {
		// Handed a turn as every caller left: no request for nobody.
		in.v.budget.release()
		return received{}, Principal{}, time.Time{}, fmt.Errorf("%w: every request waiting for the introspection ended: %w", ErrBusy, err)
	}
	f.asking.Store(true)
	ctx, cancel := context.WithTimeout(ctx, in.v.cfg.fetchTimeout)
	defer cancel()
	r, err := in.post(ctx, endpoint, token)
	in.v.budget.release()
	if err != nil {
		return received{}, Principal{}, time.Time{}, err
	}
	p, until, iat, err := in.judge(ctx, r, now)
	r.iat = iat
	if err != nil {
		var te *TokenError
		if errors.As(err, &te) {
			return r, Principal{}, time.Time{}, te
		}
		return received{}, Principal{}, time.Time{}, fmt.Errorf("%w: POST %s: %w", ErrIntrospectionUnavailable, secret.URL(endpoint), err)
	}
	return r, p, until, nil
}

// post sends the request and reads a 200 answer of bounded size; any
// other outcome is an error wrapping ErrIntrospectionUnavailable.
func (in *introspector) post(ctx context.Context, endpoint, token string) (received, error) {
	form := url.Values{"token": {token}, "token_type_hint": {"access_token"}}
	header := http.Header{}
	if err := in.client.Authenticate(ctx, header, form); err != nil {
		return received{}, fmt.Errorf("%w: the client could not authenticate: %w", ErrIntrospectionUnavailable, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return received{}, fmt.Errorf("%w: the endpoint does not form a request", ErrIntrospectionUnavailable)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", introspectionAccept)
	resp, err := in.http.Do(req)
	if err != nil {
		return received{}, fmt.Errorf("%w: POST %s: %w", ErrIntrospectionUnavailable, secret.URL(endpoint), transportCause(err))
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxDocumentSize+1))
	switch {
	case err != nil:
		return received{}, fmt.Errorf("%w: POST %s: reading the answer: %w", ErrIntrospectionUnavailable, secret.URL(endpoint), transportCause(err))
	case resp.StatusCode != http.StatusOK:
		// The body is not quoted: a server may echo the request.
		return received{}, fmt.Errorf("%w: POST %s: status %d", ErrIntrospectionUnavailable, secret.URL(endpoint), resp.StatusCode)
	case len(body) > maxDocumentSize:
		return received{}, fmt.Errorf("%w: POST %s: answer larger than %d bytes", ErrIntrospectionUnavailable, secret.URL(endpoint), maxDocumentSize)
	}
	media, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	return received{body: body, signed: media == mediaIntrospection}, nil
}

// judge reads an answer, fresh from the endpoint or kept by the shared
// store: a signed one is opened with the issuer's keys first, and iat is
// its `iat` (0 for a plain answer). A refusal of the token is a
// *TokenError; any other error means the answer is not usable.
func (in *introspector) judge(ctx context.Context, r received, now time.Time) (p Principal, until time.Time, iat int64, err error) {
	body := r.body
	if r.signed {
		if body, iat, err = in.v.openSignedIntrospection(ctx, body, in.client.ClientID()); err != nil {
			return Principal{}, time.Time{}, 0, err
		}
	}
	p, until, err = in.v.readIntrospection(body, now)
	return p, until, iat, err
}

// transportCause is the network error inside a *url.Error, whose own
// message repeats the URL.
func transportCause(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return errors.New("timed out (bearer.FetchTimeout)")
	}
	return err
}
