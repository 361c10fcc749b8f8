package bearer

import (
	"context"
	"crypto"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/svckit/svc/modules/oauthclient"
)

// Issue 20: an active answer is checked as a JWT's claims are; an
// inactive one is refused; an answer that is no RFC 7662 document is no
// answer (503, fail closed).
func TestIntrospectionRules(t *testing.T) {
	with := func(change func(a map[string]any)) map[string]any {
		a := activeAnswer()
		change(a)
		return a
	}
	tests := []struct {
		name   string
		answer map[string]any
		raw    string // sent instead of answer when set
		status int    // answered instead of 200 when set
		want   Reason // "" for accepted
		down   bool   // no usable answer: ErrIntrospectionUnavailable
	}{
		{name: "active", answer: activeAnswer()},
		{name: "active without token_type", answer: with(func(a map[string]any) { delete(a, "token_type") })},
		{name: "token_type in lower case", answer: with(func(a map[string]any) { a["token_type"] = "bearer" })},
		{name: "aud as an array", answer: with(func(a map[string]any) { a["aud"] = []string{"other", testAudience} })},
		{name: "inactive", answer: map[string]any{"active": false}, want: ReasonInactive},
		{name: "inactive with claims", answer: with(func(a map[string]any) { a["active"] = false }), want: ReasonInactive},
		{name: "exp missing", answer: with(func(a map[string]any) { delete(a, "exp") }), want: ReasonInvalidClaims},
		{name: "exp past", answer: with(func(a map[string]any) { a["exp"] = testNow.Add(-time.Minute).Unix() }), want: ReasonExpired},
		{name: "exp within leeway", answer: with(func(a map[string]any) { a["exp"] = testNow.Add(-10 * time.Second).Unix() })},
		{name: "exp a string", answer: with(func(a map[string]any) { a["exp"] = "soon" }), want: ReasonInvalidClaims},
		{name: "nbf future", answer: with(func(a map[string]any) { a["nbf"] = testNow.Add(time.Hour).Unix() }), want: ReasonNotYetValid},
		{name: "iss other", answer: with(func(a map[string]any) { a["iss"] = testIssuer + "/" }), want: ReasonIssuer},
		{name: "iss missing", answer: with(func(a map[string]any) { delete(a, "iss") }), want: ReasonIssuer},
		{name: "aud other", answer: with(func(a map[string]any) { a["aud"] = "https://other.example" }), want: ReasonAudience},
		{name: "aud missing", answer: with(func(a map[string]any) { delete(a, "aud") }), want: ReasonAudience},
		{name: "scope with a tab", answer: with(func(a map[string]any) { a["scope"] = "read\tadmin" }), want: ReasonInvalidClaims},
		{name: "scope a number", answer: with(func(a map[string]any) { a["scope"] = 7 }), want: ReasonInvalidClaims},
		{name: "token_type DPoP without cnf", answer: with(func(a map[string]any) { a["token_type"] = "DPoP"; delete(a, "cnf") }), want: ReasonTokenType},
		{name: "token_type DPoP with cnf.jkt", answer: with(func(a map[string]any) { a["token_type"] = "DPoP" })},
		{name: "token_type DPoP with cnf.x5t#S256 only", answer: with(func(a map[string]any) {
			a["token_type"], a["cnf"] = "DPoP", map[string]string{"x5t#S256": "bwcK0esc3ACC3DB2Y5_lESsXE8o9ltc05O89jdN-dg2"}
		}), want: ReasonTokenType},
		{name: "token_type DPoP with an empty cnf.jkt", answer: with(func(a map[string]any) {
			a["token_type"], a["cnf"] = "DPoP", map[string]string{"jkt": ""}
		}), want: ReasonTokenType},
		{name: "token_type DPoP with a cnf not an object", answer: with(func(a map[string]any) { a["token_type"], a["cnf"] = "DPoP", "x" }), want: ReasonTokenType},
		{name: "token_type not a string", answer: with(func(a map[string]any) { a["token_type"] = 1 }), want: ReasonTokenType},
		{name: "active a string", answer: with(func(a map[string]any) { a["active"] = "true" }), down: true},
		{name: "active missing", answer: with(func(a map[string]any) { delete(a, "active") }), down: true},
		{name: "not JSON", raw: "<html>", down: true},
		{name: "an array", raw: `[{"active":true}]`, down: true},
		{name: "active twice", raw: `{"active":false,"active":true}`, down: true},
		{name: "status 500", answer: activeAnswer(), status: 500, down: true},
		{name: "status 401", answer: activeAnswer(), status: 401, down: true},
		{name: "redirect", answer: activeAnswer(), status: 307, down: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newIntrospectionServer(t, tt.answer)
			if tt.raw != "" {
				srv.setRaw([]byte(tt.raw), "application/json")
			}
			if tt.status != 0 {
				srv.setStatus(tt.status)
			}
			v := introspectingVerifier(t, srv)
			p, err := v.Verify(context.Background(), opaqueToken)
			if err != nil && strings.Contains(err.Error(), opaqueToken) {
				t.Fatalf("the error quotes the token: %v", err)
			}
			switch {
			case tt.down:
				if !errors.Is(err, ErrIntrospectionUnavailable) {
					t.Fatalf("got %v, want ErrIntrospectionUnavailable", err)
				}
				var te *TokenError
				if errors.As(err, &te) {
					t.Fatalf("a failure carries a refusal: %v", err)
				}
			case tt.want != "":
				if got := reasonOf(t, err); got != tt.want {
					t.Fatalf("reason %s, want %s (%v)", got, tt.want, err)
				}
			default:
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				if !p.Authenticated || p.Subject != "user-1" || p.Issuer != testIssuer || !p.Scopes.Has("read", "write") || len(p.Scopes) != 2 {
					t.Fatalf("principal %+v", p)
				}
				var cnf struct{ JKT string }
				if err := p.Claims.Decode("cnf", &cnf); err != nil || cnf.JKT == "" {
					t.Fatalf("cnf not kept: %v", err)
				}
			}
			if n := srv.requests.Load(); n != 1 {
				t.Fatalf("%d requests, want 1", n)
			}
		})
	}
}

// The request is RFC 7662 §2.1's: a form POST of token and
// token_type_hint, authenticated, asking for a signed answer first.
func TestIntrospectionRequest(t *testing.T) {
	srv := newIntrospectionServer(t, activeAnswer())
	v := introspectingVerifier(t, srv)
	if _, err := v.Verify(context.Background(), opaqueToken); err != nil {
		t.Fatal(err)
	}
	form, h := srv.last()
	if form.Get("token") != opaqueToken || form.Get("token_type_hint") != "access_token" {
		t.Fatalf("form %v", form)
	}
	if h.Get("Content-Type") != "application/x-www-form-urlencoded" || h.Get("Accept") != introspectionAccept {
		t.Fatalf("headers %v", h)
	}
}

// The client authenticates as the outbound client does: Basic with the
// form-encoded ID and secret, post with form fields, private_key_jwt
// with a fresh assertion each request.
func TestIntrospectionClientAuthentication(t *testing.T) {
	keyPEM := rsaKeyPEM(t)
	tests := []struct {
		name  string
		auth  oauthclient.ClientAuth
		check func(t *testing.T, form map[string][]string, h http.Header)
	}{
		{"client_secret_basic", oauthclient.Secret(oauthclient.Basic), func(t *testing.T, form map[string][]string, h http.Header) {
			want := "Basic " + base64.StdEncoding.EncodeToString([]byte("rs-client:s3cret%3Awith%2Fodd%2Bchars"))
			if h.Get("Authorization") != want || form["client_secret"] != nil {
				t.Fatalf("Authorization %q, form %v", h.Get("Authorization"), form)
			}
		}},
		{"client_secret_post", oauthclient.Secret(oauthclient.Post), func(t *testing.T, form map[string][]string, h http.Header) {
			if h.Get("Authorization") != "" || form["client_id"][0] != testClientID || form["client_secret"][0] != testSecret {
				t.Fatalf("Authorization %q, form %v", h.Get("Authorization"), form)
			}
		}},
		{"private_key_jwt", oauthclient.PrivateKey(keyPEM, oauthclient.AudienceTokenEndpoint), func(t *testing.T, form map[string][]string, h http.Header) {
			if h.Get("Authorization") != "" || form["client_id"][0] != testClientID ||
				form["client_assertion_type"][0] != "urn:ietf:params:oauth:client-assertion-type:jwt-bearer" ||
				strings.Count(form["client_assertion"][0], ".") != 2 || form["client_secret"] != nil {
				t.Fatalf("Authorization %q, form %v", h.Get("Authorization"), form)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newIntrospectionServer(t, activeAnswer())
			client := testClient(t, srv.URL+"/token", tt.auth)
			v := openVerifier(t, KeySet(testIssuer, testAudience, []crypto.PublicKey{&keys(t).rsa.PublicKey},
				Clock(fixedClock()), Introspect(srv.URL+"/introspect", client)))
			if _, err := v.Verify(context.Background(), opaqueToken); err != nil {
				t.Fatal(err)
			}
			form, h := srv.last()
			tt.check(t, form, h)
		})
	}
}

// A JWS goes to the keys, whatever Introspect says; anything else to the
// endpoint. A JWE stays refused as encrypted.
func TestIntrospectionOnlyForOpaqueTokens(t *testing.T) {
	srv := newIntrospectionServer(t, activeAnswer())
	v := introspectingVerifier(t, srv)
	jws := joseSign(t, "RS256", keys(t).rsa, "", validClaims())
	if _, err := v.Verify(context.Background(), jws); err != nil {
		t.Fatalf("JWT: %v", err)
	}
	if _, err := v.Verify(context.Background(), "eyJhbGciOiJSU0EtT0FFUCJ9.a.b.c.d"); reasonOf(t, err) != ReasonEncrypted {
		t.Fatalf("JWE: %v", err)
	}
	if n := srv.requests.Load(); n != 0 {
		t.Fatalf("%d introspections for a JWS and a JWE", n)
	}
	for _, tok := range []string{"a.b.c", "2YotnFZFEjr1zCsicMWpAA", "abc.def.ghi.jkl.mno"} {
		if _, err := v.Verify(context.Background(), tok); err != nil {
			t.Fatalf("%s: %v", tok, err)
		}
	}
	for _, tok := range []string{"has space", "semi;colon", "==", strings.Repeat("a", defaultMaxTokenSize+1)} {
		if _, err := v.Verify(context.Background(), tok); err == nil || errors.Is(err, ErrIntrospectionUnavailable) {
			t.Fatalf("%.20s: %v", tok, err)
		}
	}
	if n := srv.requests.Load(); n != 3 {
		t.Fatalf("%d introspections, want 3", n)
	}
}

func TestIsJWS(t *testing.T) {
	for tok, want := range map[string]bool{
		"eyJhbGciOiJSUzI1NiJ9.e30.c2ln": true,  // {"alg"...
		"eyAiYWxnIjoiUlMyNTYifQ.e30.x":  true,  // { "alg"... (a space first)
		"eyJhbGciOiJSUzI1NiJ9.a.b.c.d":  true,  // a JWE: refused as encrypted
		"abcd.efgh.ijkl":                false, // decodes to no object
		"eyJh.b":                        false, // one dot
		"eyJ.b.c":                       false, // a short first segment
		"2YotnFZFEjr1zCsicMWpAA":        false,
		"":                              false,
	} {
		if got := isJWS(tok); got != want {
			t.Errorf("isJWS(%q) = %v, want %v", tok, got, want)
		}
	}
}

// The settings are checked: a nil client, an unsafe endpoint, none where
// nothing discovers one, a TTL out of range.
func TestIntrospectSettings(t *testing.T) {
	client := testClient(t, "https://idp.example/token")
	pub := []crypto.PublicKey{&keys(t).rsa.PublicKey}
	tests := []struct {
		name    string
		v       *JWTVerifier
		setting string
	}{
		{"nil client", KeySet(testIssuer, testAudience, pub, Introspect("https://idp.example/i", nil)), "Introspect"},
		{"http endpoint", KeySet(testIssuer, testAudience, pub, Introspect("http://idp.example/i", client)), "Introspect"},
		{"query", KeySet(testIssuer, testAudience, pub, Introspect("https://idp.example/i?key=x", client)), "Introspect"},
		{"userinfo", KeySet(testIssuer, testAudience, pub, Introspect("https://u:p@idp.example/i", client)), "Introspect"},
		{"no endpoint, no discovery", JWKSURL("https://idp.example/jwks", testIssuer, testAudience, Introspect("", client)), "Introspect"},
		{"an issuer template", New("https://login.example.com/{tenantid}/v2.0", testAudience, Tenants("t1"), Introspect("https://idp.example/i", client)), "Introspect"},
		{"TTL zero", KeySet(testIssuer, testAudience, pub, Introspect("https://idp.example/i", client), IntrospectionTTL(0)), "IntrospectionTTL"},
		{"TTL a day", KeySet(testIssuer, testAudience, pub, Introspect("https://idp.example/i", client), IntrospectionTTL(24*time.Hour)), "IntrospectionTTL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ce *ConfigError
			if !errors.As(tt.v.err, &ce) || ce.Setting != tt.setting {
				t.Fatalf("Err %v, want a *ConfigError for %s", tt.v.err, tt.setting)
			}
			if strings.Contains(tt.v.err.Error(), "u:p") || strings.Contains(tt.v.err.Error(), "key=x") {
				t.Fatalf("the error quotes a credential: %v", tt.v.err)
			}
			if _, err := tt.v.Verify(context.Background(), opaqueToken); !errors.As(err, &ce) {
				t.Fatalf("Verify: %v", err)
			}
		})
	}
	if err := New(testIssuer, testAudience, Introspect("", client)).err; err != nil {
		t.Fatalf("Discover may discover the endpoint: %v", err)
	}
}

// A failure names the endpoint and the cause, never the token or a
// credential.
func TestIntrospectionFailureNamesNoSecret(t *testing.T) {
	srv := newIntrospectionServer(t, activeAnswer())
	srv.setStatus(http.StatusBadGateway)
	v := introspectingVerifier(t, srv)
	_, err := v.Verify(context.Background(), opaqueToken)
	msg := fmt.Sprint(err)
	if !errors.Is(err, ErrIntrospectionUnavailable) || !strings.Contains(msg, "status 502") || !strings.Contains(msg, srv.URL) {
		t.Fatalf("error %q", msg)
	}
	for _, secretPart := range []string{opaqueToken, testSecret, "s3cret"} {
		if strings.Contains(msg, secretPart) {
			t.Fatalf("error %q quotes %q", msg, secretPart)
		}
	}
}
