package svctest

import (
	"bytes"
	"context"
	"crypto"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// Request is one request to the app, built by [App.Request] and sent by
// [Request.Send]. Its methods return the Request, so that a request reads
// as one line:
//
//	app.Request("PUT", "/orders/1").Token(tok).Header("If-Match", etag).JSON(order).Send(t)
type Request struct {
	app         *App
	method      string
	path        string
	header      http.Header
	query       url.Values
	body        []byte
	contentType string
	err         error
	dpopKey     crypto.Signer // nil: no DPoP proof
}

// Request starts a request for method and path (which may carry a query).
func (a *App) Request(method, path string) *Request {
	return &Request{app: a, method: method, path: path, header: http.Header{}}
}

// Token sends tok as a bearer credential; "" sends none.
func (r *Request) Token(tok string) *Request {
	if tok == "" {
		r.header.Del("Authorization")
		return r
	}
	r.header.Set("Authorization", "Bearer "+tok)
	return r
}

// Header adds a header field (a second call with the same name adds a
// second value).
func (r *Request) Header(name, value string) *Request {
	r.header.Add(name, value)
	return r
}

// Query adds a query parameter to those the path carries.
func (r *Request) Query(name, value string) *Request {
	if r.query == nil {
		r.query = url.Values{}
	}
	r.query.Add(name, value)
	return r
}

// JSON sends v encoded as JSON, with Content-Type application/json. A
// value that does not encode fails the test at Send.
func (r *Request) JSON(v any) *Request {
	r.body, r.err = json.Marshal(v)
	r.contentType = "application/json"
	return r
}

// Body sends body as it is, with the given Content-Type ("" sends none).
func (r *Request) Body(contentType, body string) *Request {
	r.body, r.contentType = []byte(body), contentType
	return r
}

// Send sends the request and reads the whole answer. A request that cannot
// be built or a transport error fails the test.
func (r *Request) Send(t testing.TB) Response {
	t.Helper()
	if r.err != nil {
		t.Fatalf("svctest: %s %s: encoding the JSON body: %v", r.method, r.path, r.err)
	}
	target := r.app.URL + r.path
	if len(r.query) > 0 {
		sep := "?"
		if strings.Contains(r.path, "?") {
			sep = "&"
		}
		target += sep + r.query.Encode()
	}
	var body io.Reader
	if r.body != nil {
		body = bytes.NewReader(r.body)
	}
	req, err := http.NewRequestWithContext(context.Background(), r.method, target, body)
	if err != nil {
		t.Fatalf("svctest: %s %s: %v", r.method, r.path, err)
	}
	req.Header = r.header.Clone()
	if r.contentType != "" {
		req.Header.Set("Content-Type", r.contentType)
	}
	resp := r.do(t, req, "")
	if nonce, ok := wantsNonce(resp); ok && r.dpopKey != nil {
		resp.Body.Close()
		retry := req.Clone(req.Context())
		if r.body != nil {
			retry.Body = io.NopCloser(bytes.NewReader(r.body))
		}
		resp = r.do(t, retry, nonce)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("svctest: reading %s %s: %v", r.method, r.path, err)
	}
	return Response{Status: resp.StatusCode, Header: resp.Header, Body: string(b)}
}

// do sends req, with a DPoP proof carrying nonce when the request has a
// DPoP key.
func (r *Request) do(t testing.TB, req *http.Request, nonce string) *http.Response {
	t.Helper()
	if r.dpopKey != nil {
		proof, err := r.proof(req, nonce)
		if err != nil {
			t.Fatalf("svctest: %s %s: signing the DPoP proof: %v", r.method, r.path, err)
		}
		req.Header.Set("DPoP", proof)
	}
	resp, err := r.app.Client.Do(req)
	if err != nil {
		t.Fatalf("svctest: %s %s: %v", r.method, r.path, err)
	}
	return resp
}

// Response is an answer read whole.
type Response struct {
	Status int
	Header http.Header
	Body   string
}

// DecodeJSON decodes the body into v; a body that is not JSON fails the
// test, quoting it.
func (r Response) DecodeJSON(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(r.Body), v); err != nil {
		t.Fatalf("svctest: the body is not the JSON expected (%v): %q", err, r.Body)
	}
}
