// Package authngrpc puts the authentication gate in front of a gRPC server:
// every call's `authorization` metadata is verified by the same verifier,
// with the same bans, flood limits, check hook, security records and
// metrics as the HTTP routes, and refused with a gRPC status that never
// echoes the token.
//
//	gs := grpc.NewServer(
//	    grpc.UnaryInterceptor(authngrpc.UnaryServerInterceptor(gate, rules...)),
//	    grpc.StreamInterceptor(authngrpc.StreamServerInterceptor(gate, rules...)),
//	)
//
// Every method is authenticated unless a rule says otherwise. A refusal
// that carries a challenge over HTTP carries it in the `www-authenticate`
// header metadata (each challenge one value). The gate sees each call as
// `POST /package.Service/Method`, so its records and metrics carry the full
// method name as `http.route`.
//
// Sender-constrained tokens work as over HTTP. With authn.DPoP, a call
// sends `authorization: DPoP <token>` and its proof in the `dpop`
// metadata; the proof's htm is POST and its htu the URL the client forms
// for the call, https://AUTHORITY/package.Service/Method: the scheme https
// when the connection is TLS (http on a plaintext one), the authority as
// the client sent it (`:authority`, e.g. api.example.com or
// api.example.com:8443), the full method as the path. A client library
// signs the proof with that URL; no proxy header is read, so behind a
// proxy that terminates TLS the scheme is the connection's (http). A
// refused proof is Unauthenticated with the DPoP challenge
// (error="invalid_dpop_proof"), and a missing nonce Unauthenticated with
// error="use_dpop_nonce" and the nonce in the `dpop-nonce` header
// metadata. With authn.CertificateBound, the client certificate is the
// one the gRPC connection's TLS received (grpc.Creds with client
// certificates requested or required); the proxy headers are not read.
package authngrpc

import (
	"context"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"

	"github.com/svckit/svc/modules/authn"
)

// Rule guards one full method ("/package.Service/Method") or, with a name
// ending in "/", every method of a service ("/package.Service/").
type Rule struct {
	method    string
	scopes    []string
	anonymous bool
	stepUps   []func(http.Handler) http.Handler
}

// Require makes the method need a token granting every scope named.
func Require(fullMethod string, scopes ...string) Rule {
	return Rule{method: fullMethod, scopes: scopes}
}

// Anonymous makes the method callable without a token; a token that is
// sent must still verify.
func Anonymous(fullMethod string) Rule { return Rule{method: fullMethod, anonymous: true} }

// With adds the step-up markers authn.RequireACR and authn.MaxAge,
// authn.RequireDPoP, authn.RequireIssuer and authn.RequireRole to a
// [Require] rule, as r.With adds them to a chi route (a caller lacking a
// role is refused codes.PermissionDenied naming the roles it lacks; see
// [RequireRole]):
//
//	authngrpc.Require("/bank.Payments/Send", "payments").
//		With(authn.RequireACR("phr"), authn.MaxAge(5*time.Minute), authn.RequireDPoP)
//
// A call whose token falls short is refused codes.Unauthenticated, with the
// gate's RFC 9470 challenge (error="insufficient_user_authentication",
// acr_values, max_age) or its DPoP challenge in the `www-authenticate`
// header metadata; a caller of an issuer authn.RequireIssuer does not
// name is refused codes.PermissionDenied. With panics on any other middleware (it would run on
// the gate's stand-in request, not on the call), and the interceptors
// panic on an Anonymous rule given one, and on authn.RequireDPoP with a
// gate that takes no DPoP, as the gate refuses such a route.
func (r Rule) With(markers ...func(http.Handler) http.Handler) Rule {
	for _, m := range markers {
		h := m(http.NotFoundHandler())
		if d, ok := h.(interface{ DPoPRequired() bool }); ok && d.DPoPRequired() {
			continue
		}
		if i, ok := h.(interface{ Issuers() ([]string, bool) }); ok {
			if _, ok := i.Issuers(); ok {
				continue
			}
		}
		if isRoleMarker(h) {
			continue
		}
		s, ok := h.(interface {
			StepUp() ([]string, time.Duration, bool)
		})
		if !ok {
			panic("authngrpc: Rule.With takes authn.RequireACR, authn.MaxAge, authn.RequireDPoP, authn.RequireIssuer and authn.RequireRole only")
		}
		if _, _, ok := s.StepUp(); !ok {
			panic("authngrpc: Rule.With takes authn.RequireACR, authn.MaxAge, authn.RequireDPoP, authn.RequireIssuer and authn.RequireRole only; put scopes in authngrpc.Require")
		}
	}
	r.stepUps = append(slices.Clip(r.stepUps), markers...)
	return r
}

// UnaryServerInterceptor authenticates every unary call through g. It
// panics on an invalid rule (a method name not starting with "/", or one
// named twice), as a router does on a bad route.
func UnaryServerInterceptor(g *authn.Gate, rules ...Rule) grpc.UnaryServerInterceptor {
	gh := newGuard(g, rules)
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		admitted, err := gh.admit(ctx, info.FullMethod)
		if err != nil {
			return nil, err
		}
		return handler(admitted, req)
	}
}

// StreamServerInterceptor authenticates every streaming call through g when
// the stream opens; see [UnaryServerInterceptor].
func StreamServerInterceptor(g *authn.Gate, rules ...Rule) grpc.StreamServerInterceptor {
	gh := newGuard(g, rules)
	return func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
		admitted, err := gh.admit(ss.Context(), info.FullMethod)
		if err != nil {
			return err
		}
		return handler(srv, &admittedStream{ServerStream: ss, ctx: admitted})
	}
}

type admittedStream struct {
	grpc.ServerStream
	ctx context.Context
}

func (s *admittedStream) Context() context.Context { return s.ctx }

// guard runs calls through the gate installed on an authn.ServeMux whose
// patterns are the rules: the gate's own route markers decide anonymous
// and scoped methods, so gRPC and HTTP are judged by one piece of code.
type guard struct{ h http.Handler }

type admittedKey struct{}

func newGuard(g *authn.Gate, rules []Rule) *guard {
	mux := authn.NewServeMux()
	pass := http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		if slot, ok := r.Context().Value(admittedKey{}).(*context.Context); ok {
			*slot = r.Context()
		}
	})
	for _, rule := range rules {
		if !strings.HasPrefix(rule.method, "/") {
			panic("authngrpc: method " + rule.method + ` must be a full method name, "/package.Service/Method"`)
		}
		var h http.Handler = pass
		for i := len(rule.stepUps) - 1; i >= 0; i-- {
			h = rule.stepUps[i](h)
		}
		switch {
		case rule.anonymous:
			h = authn.Anonymous(h)
		case len(rule.scopes) > 0:
			h = authn.Require(rule.scopes...)(h)
		}
		mux.Handle("POST "+rule.method, h)
	}
	if !hasRule(rules, "/") {
		mux.Handle("POST /", pass)
	}
	h, err := g.Handler(mux)
	if err != nil {
		panic("authngrpc: " + err.Error())
	}
	return &guard{h: h}
}

func hasRule(rules []Rule, method string) bool {
	for _, r := range rules {
		if r.method == method {
			return true
		}
	}
	return false
}

// admit returns the context of an admitted call (carrying its principal)
// or the gRPC status of the refusal.
func (gh *guard) admit(ctx context.Context, fullMethod string) (context.Context, error) {
	var admitted context.Context
	r := (&http.Request{
		Method:     http.MethodPost,
		URL:        &url.URL{Path: fullMethod},
		RequestURI: fullMethod,
		Proto:      "HTTP/2.0", ProtoMajor: 2,
		Header: http.Header{},
		Host:   "grpc",
		Body:   http.NoBody,
	}).WithContext(context.WithValue(ctx, admittedKey{}, &admitted))
	if md, ok := metadata.FromIncomingContext(ctx); ok {
		for _, v := range md.Get("authorization") {
			r.Header.Add("Authorization", v)
		}
		// Every value, so that the gate refuses two proofs as over HTTP.
		for _, v := range md.Get("dpop") {
			r.Header.Add("DPoP", v)
		}
		if ua := md.Get("user-agent"); len(ua) > 0 {
			r.Header.Set("User-Agent", ua[0])
		}
		// The authority the client called: a DPoP proof's htu names it.
		if a := md.Get(":authority"); len(a) == 1 {
			r.Host = a[0]
		}
	}
	if p, ok := peer.FromContext(ctx); ok {
		if p.Addr != nil {
			r.RemoteAddr = p.Addr.String()
			if _, _, err := net.SplitHostPort(r.RemoteAddr); err != nil {
				r.RemoteAddr = ""
			}
		}
		if info, ok := p.AuthInfo.(credentials.TLSInfo); ok {
			// The connection's TLS: its client certificate binds a token
			// (authn.CertificateBound), and its scheme is https in htu.
			state := info.State
			r.TLS = &state
		}
	}
	rec := &refusal{header: http.Header{}}
	gh.h.ServeHTTP(rec, r)
	if admitted != nil {
		// A proof with the previous step's nonce is admitted with the
		// current one to use next (RFC 9449 §8.2), as over HTTP.
		if nonce := rec.header.Get("DPoP-Nonce"); nonce != "" {
			_ = grpc.SetHeader(ctx, metadata.MD{"dpop-nonce": []string{nonce}})
		}
		return admitted, nil
	}
	// The challenges tell a client what token to get (a scope, a step-up,
	// claims) or what proof to send, as they do over HTTP; with DPoP
	// allowed there are two (Bearer and DPoP). Sent as header metadata,
	// which gRPC delivers with the refusal's status.
	md := metadata.MD{}
	if challenges := rec.header.Values("WWW-Authenticate"); len(challenges) > 0 {
		md["www-authenticate"] = challenges
	}
	if nonce := rec.header.Get("DPoP-Nonce"); nonce != "" {
		md["dpop-nonce"] = []string{nonce}
	}
	if len(md) > 0 {
		_ = grpc.SetHeader(ctx, md)
	}
	return nil, rec.status()
}

// refusal is the gate's answer to a call it refused; only its status and
// challenge are read, never the body.
type refusal struct {
	header http.Header
	code   int
	body   []byte // the first bytes of the body, for a role refusal's roles
}

func (r *refusal) Header() http.Header         { return r.header }
func (r *refusal) Write(b []byte) (int, error) { return r.keep(b), nil }
func (r *refusal) WriteHeader(code int) {
	if r.code == 0 {
		r.code = code
	}
}

// status maps the gate's HTTP refusal to a gRPC status. The messages are
// fixed: no token, claim or key detail reaches the caller.
func (r *refusal) status() error {
	challenge := strings.Join(r.header.Values("WWW-Authenticate"), ", ")
	switch r.code {
	case http.StatusUnauthorized:
		switch {
		case strings.Contains(challenge, `error="use_dpop_nonce"`):
			return status.Error(codes.Unauthenticated, "the DPoP proof must carry the server's nonce: send a new proof with the nonce of the dpop-nonce metadata")
		case strings.Contains(challenge, `error="invalid_dpop_proof"`):
			return status.Error(codes.Unauthenticated, "the DPoP proof was refused: send a new proof for this call (htm POST, htu the call's URL), signed by the token's key")
		case strings.HasPrefix(challenge, "DPoP ") && strings.Contains(challenge, `error="invalid_token"`):
			return status.Error(codes.Unauthenticated, "the access token was rejected (a token bound to a key goes with the DPoP scheme and a proof)")
		case strings.Contains(challenge, `error="invalid_token"`):
			return status.Error(codes.Unauthenticated, "the bearer token was rejected")
		case strings.Contains(challenge, `error="insufficient_user_authentication"`):
			return status.Error(codes.Unauthenticated, "the user's authentication is too weak or too old for this method: authenticate again as the www-authenticate metadata asks (RFC 9470)")
		case strings.Contains(challenge, `error="insufficient_claims"`):
			return status.Error(codes.Unauthenticated, "the token lacks claims this method requires: get a new token asking for the claims in the www-authenticate metadata")
		}
		return status.Error(codes.Unauthenticated, "a bearer token is required in the authorization metadata")
	case http.StatusForbidden:
		if i := strings.Index(challenge, `scope="`); i >= 0 {
			if j := strings.IndexByte(challenge[i+7:], '"'); j >= 0 {
				return status.Error(codes.PermissionDenied, "the token lacks a required scope: "+challenge[i+7:i+7+j])
			}
		}
		if roles := r.missingRoles(); len(roles) > 0 {
			return status.Error(codes.PermissionDenied, "the caller lacks a role this method requires: "+strings.Join(roles, ", "))
		}
		return status.Error(codes.PermissionDenied, "the caller may not call this method")
	case http.StatusBadRequest:
		return status.Error(codes.InvalidArgument, "send exactly one bearer token")
	case http.StatusTooManyRequests:
		msg := "too many refused calls from this address"
		if ra := r.header.Get("Retry-After"); ra != "" {
			msg += "; retry after " + ra + " s"
		}
		return status.Error(codes.ResourceExhausted, msg)
	case http.StatusServiceUnavailable:
		return status.Error(codes.Unavailable, "token verification is not available yet; retry later")
	}
	return status.Error(codes.Internal, "the call could not be authenticated")
}
