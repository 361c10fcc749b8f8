package bearer

import (
	"context"
	"crypto"
	"encoding/json"
	"errors"
	"testing"
	"time"
)

// signedAnswer is an RFC 9701 answer: a JWT of typ
// token-introspection+jwt whose token_introspection member is the plain
// answer.
func signedAnswer(t testing.TB, key any, header, claims map[string]any) []byte {
	t.Helper()
	h, _ := json.Marshal(header)
	c, _ := json.Marshal(claims)
	return []byte(rawSign(t, header["alg"].(string), key, string(h), string(c)))
}

// Issue 20 / RFC 9701: a signed answer is verified with the issuer's
// keys, its typ, iss and aud checked; any fault is the issuer's (503),
// never a verdict on the caller's token.
func TestSignedIntrospectionAnswers(t *testing.T) {
	k := keys(t)
	header := map[string]any{"alg": "RS256", "typ": "token-introspection+jwt"}
	claims := func() map[string]any {
		return map[string]any{"iss": testIssuer, "aud": testClientID, "iat": testNow.Unix(), "token_introspection": activeAnswer()}
	}
	with := func(change func(h, c map[string]any)) (map[string]any, map[string]any) {
		h, c := map[string]any{}, claims()
		for k, v := range header {
			h[k] = v
		}
		change(h, c)
		return h, c
	}
	tests := []struct {
		name        string
		key         any
		change      func(h, c map[string]any)
		contentType string
		want        Reason
		down        bool
	}{
		{name: "valid", key: k.rsa, change: func(h, c map[string]any) {}},
		{name: "typ with application/", key: k.rsa, change: func(h, c map[string]any) { h["typ"] = "application/token-introspection+jwt" }},
		{name: "aud an array", key: k.rsa, change: func(h, c map[string]any) { c["aud"] = []string{"x", testClientID} }},
		{name: "content type with parameters", key: k.rsa, change: func(h, c map[string]any) {}, contentType: "application/token-introspection+jwt; charset=utf-8"},
		{name: "inactive inside", key: k.rsa, change: func(h, c map[string]any) { c["token_introspection"] = map[string]any{"active": false} }, want: ReasonInactive},
		{name: "wrong aud inside", key: k.rsa, change: func(h, c map[string]any) {
			a := activeAnswer()
			a["aud"] = "other"
			c["token_introspection"] = a
		}, want: ReasonAudience},
		{name: "another key", key: k.rsa2, change: func(h, c map[string]any) {}, down: true},
		{name: "no typ", key: k.rsa, change: func(h, c map[string]any) { delete(h, "typ") }, down: true},
		{name: "typ JWT", key: k.rsa, change: func(h, c map[string]any) { h["typ"] = "JWT" }, down: true},
		{name: "alg none", key: k.rsa, change: func(h, c map[string]any) { h["alg"] = "none" }, down: true},
		{name: "iss other", key: k.rsa, change: func(h, c map[string]any) { c["iss"] = "https://evil.example" }, down: true},
		{name: "aud other client", key: k.rsa, change: func(h, c map[string]any) { c["aud"] = "other-client" }, down: true},
		{name: "no token_introspection", key: k.rsa, change: func(h, c map[string]any) { delete(c, "token_introspection") }, down: true},
		{name: "token_introspection a string", key: k.rsa, change: func(h, c map[string]any) { c["token_introspection"] = "{}" }, down: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, c := with(tt.change)
			var body []byte
			if h["alg"] == "none" {
				hb, _ := json.Marshal(h)
				cb, _ := json.Marshal(c)
				body = []byte(enc.EncodeToString(hb) + "." + enc.EncodeToString(cb) + ".")
			} else {
				body = signedAnswer(t, tt.key, h, c)
			}
			srv := newIntrospectionServer(t, nil)
			ct := tt.contentType
			if ct == "" {
				ct = mediaIntrospection
			}
			srv.setRaw(body, ct)
			v := introspectingVerifier(t, srv)
			p, err := v.Verify(context.Background(), opaqueToken)
			switch {
			case tt.down:
				var te *TokenError
				if !errors.Is(err, ErrIntrospectionUnavailable) || errors.As(err, &te) {
					t.Fatalf("got %v, want only ErrIntrospectionUnavailable", err)
				}
			case tt.want != "":
				if got := reasonOf(t, err); got != tt.want {
					t.Fatalf("reason %s, want %s", got, tt.want)
				}
			default:
				if err != nil || !p.Authenticated || p.Subject != "user-1" {
					t.Fatalf("%+v %v", p, err)
				}
			}
		})
	}
}

// A signed answer before the issuer's keys arrived is no answer yet.
func TestSignedIntrospectionWaitsForKeys(t *testing.T) {
	k := keys(t)
	jwks := newJWKSServer(t, jwksJSON(t, jwkJSON(t, &k.rsa.PublicKey, "", "")))
	jwks.setBody([]byte("not a key set"))
	srv := newIntrospectionServer(t, nil)
	srv.setRaw(signedAnswer(t, k.rsa, map[string]any{"alg": "RS256", "typ": "token-introspection+jwt"},
		map[string]any{"iss": testIssuer, "aud": testClientID, "token_introspection": activeAnswer()}), mediaIntrospection)
	v := openVerifier(t, JWKSURL(jwks.URL, testIssuer, testAudience, Clock(fixedClock()), RetryInterval(time.Hour),
		Introspect(srv.URL+"/introspect", testClient(t, srv.URL+"/token"))))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := v.Verify(ctx, opaqueToken); !errors.Is(err, ErrIntrospectionUnavailable) {
		t.Fatalf("got %v", err)
	}
}

// Issue 20: with several issuers, an opaque token goes to the one that
// introspects; two that introspect are refused.
func TestIssuersRouteOpaqueTokens(t *testing.T) {
	k := keys(t)
	srv := newIntrospectionServer(t, activeAnswer())
	client := testClient(t, srv.URL+"/token")
	other := KeySet("https://other.example", testAudience, []crypto.PublicKey{&k.p256.PublicKey}, Clock(fixedClock()))
	mine := KeySet(testIssuer, testAudience, []crypto.PublicKey{&k.rsa.PublicKey}, Clock(fixedClock()),
		Introspect(srv.URL+"/introspect", client))
	s := Issuers(other, mine)
	if err := s.(*issuerSet).Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer s.(*issuerSet).Close(context.Background())
	if p, err := s.Verify(context.Background(), opaqueToken); err != nil || p.Issuer != testIssuer {
		t.Fatalf("%+v %v", p, err)
	}
	if got := s.(*issuerSet).introspectionEndpoint(); got != srv.URL+"/introspect" {
		t.Fatalf("endpoint %q", got)
	}
	// A JWT of the other issuer still goes to its keys, not the endpoint.
	c := validClaims()
	c["iss"] = "https://other.example"
	if _, err := s.Verify(context.Background(), joseSign(t, "ES256", k.p256, "", c)); err != nil {
		t.Fatal(err)
	}
	if n := srv.requests.Load(); n != 1 {
		t.Fatalf("%d introspections, want 1", n)
	}
	// Without a member that introspects, an opaque token stays malformed.
	plain := Issuers(KeySet(testIssuer, testAudience, []crypto.PublicKey{&k.rsa.PublicKey}))
	if _, err := plain.Verify(context.Background(), opaqueToken); reasonOf(t, err) != ReasonMalformed {
		t.Fatalf("got %v", err)
	}
	two := Issuers(
		KeySet(testIssuer, testAudience, []crypto.PublicKey{&k.rsa.PublicKey}, Introspect(srv.URL+"/a", client)),
		KeySet("https://other.example", testAudience, []crypto.PublicKey{&k.rsa.PublicKey}, Introspect(srv.URL+"/b", client)))
	var ce *ConfigError
	if _, err := two.Verify(context.Background(), opaqueToken); !errors.As(err, &ce) || ce.Setting != "Issuers" {
		t.Fatalf("two introspecting issuers: %v", err)
	}
}
