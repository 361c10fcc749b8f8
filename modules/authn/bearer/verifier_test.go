package bearer

import (
	"context"
	"crypto"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// fixture is a JWKS-backed verifier with one key of every kind, opened and
// loaded. Its retry interval is an hour, so after the first load no test
// triggers another fetch unless it asks for one.
type fixture struct {
	k    *testKeys
	jwks *jwksServer
	v    *JWTVerifier
}

func newFixture(t *testing.T, opts ...VerifierOption) *fixture {
	t.Helper()
	k := keys(t)
	f := &fixture{k: k}
	f.jwks = newJWKSServer(t, jwksJSON(t,
		jwkJSON(t, &k.rsa.PublicKey, "rsa", ""),
		jwkJSON(t, &k.rsa2.PublicKey, "rsa-ps", "PS256"),
		jwkJSON(t, &k.rsa1024.PublicKey, "rsa-weak", ""),
		jwkJSON(t, &k.p256.PublicKey, "p256", ""),
		jwkJSON(t, &k.p384.PublicKey, "p384", ""),
		jwkJSON(t, &k.p521.PublicKey, "p521", ""),
		jwkJSON(t, k.ed.Public(), "ed", ""),
	))
	opts = append([]VerifierOption{Clock(fixedClock()), RetryInterval(time.Hour)}, opts...)
	f.v = openVerifier(t, JWKSURL(f.jwks.URL+"/jwks", testIssuer, testAudience, opts...))
	waitKeys(t, f.v)
	return f
}

func TestVerifierAcceptsEveryAlgorithmFromAnIndependentSigner(t *testing.T) {
	f := newFixture(t, Algorithms("RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"))
	cases := []struct {
		alg jose.SignatureAlgorithm
		key any
		kid string
	}{
		{jose.RS256, f.k.rsa, "rsa"}, {jose.RS384, f.k.rsa, "rsa"}, {jose.RS512, f.k.rsa, "rsa"},
		{jose.PS256, f.k.rsa, "rsa"}, {jose.PS384, f.k.rsa, "rsa"}, {jose.PS512, f.k.rsa, "rsa"},
		{jose.PS256, f.k.rsa2, "rsa-ps"},
		{jose.ES256, f.k.p256, "p256"}, {jose.ES384, f.k.p384, "p384"}, {jose.ES512, f.k.p521, "p521"},
		{jose.EdDSA, f.k.ed, "ed"},
	}
	for _, c := range cases {
		t.Run(string(c.alg)+"/"+c.kid, func(t *testing.T) {
			tok := joseSign(t, c.alg, c.key, c.kid, validClaims())
			p, err := f.v.Verify(context.Background(), tok)
			if err != nil {
				t.Fatalf("Verify: %v", err)
			}
			if !p.Authenticated || p.Subject != "user-1" || p.Issuer != testIssuer {
				t.Fatalf("principal = %+v", p)
			}
		})
	}
}

func TestVerifierPrincipalCarriesClaimsAndScopes(t *testing.T) {
	f := newFixture(t)
	claims := validClaims()
	claims["aud"] = []string{"other", testAudience}
	claims["scp"] = []string{"admin", "read"}
	claims["tenant"] = map[string]any{"id": 7}
	claims["exp"] = float64(testNow.Add(time.Hour).Unix()) + 0.5
	p, err := f.v.Verify(context.Background(), joseSign(t, jose.ES256, f.k.p256, "p256", claims))
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Scopes.List(); strings.Join(got, " ") != "admin read write" {
		t.Errorf("scopes = %v, want admin read write (scope and scp merged)", got)
	}
	c := p.Claims
	if c.Issuer != testIssuer || c.Subject != "user-1" || c.ID != "id-1" {
		t.Errorf("registered claims = %+v", c)
	}
	if len(c.Audience) != 2 || c.Audience[1] != testAudience {
		t.Errorf("audience = %v", c.Audience)
	}
	if want := testNow.Add(time.Hour).Add(500 * time.Millisecond); !c.Expiry.Equal(want) {
		t.Errorf("expiry = %v, want %v (fractions kept)", c.Expiry, want)
	}
	if !c.IssuedAt.Equal(testNow.Add(-time.Minute)) || !c.NotBefore.Equal(testNow.Add(-time.Minute)) {
		t.Errorf("iat/nbf = %v / %v", c.IssuedAt, c.NotBefore)
	}
	var tenant struct{ ID int }
	if err := c.Decode("tenant", &tenant); err != nil || tenant.ID != 7 {
		t.Errorf("Decode(tenant) = %v, %+v", err, tenant)
	}
}

func TestVerifierLeeway(t *testing.T) {
	f := newFixture(t, Leeway(10*time.Second))
	cases := []struct {
		name  string
		claim string
		at    time.Duration
		want  Reason
	}{
		{"exp just inside leeway", "exp", -9 * time.Second, ""},
		{"exp at leeway edge", "exp", -10 * time.Second, ReasonExpired},
		{"nbf just inside leeway", "nbf", 10 * time.Second, ""},
		{"nbf beyond leeway", "nbf", 11 * time.Second, ReasonNotYetValid},
		{"iat just inside leeway", "iat", 10 * time.Second, ""},
		{"iat beyond leeway", "iat", 11 * time.Second, ReasonNotYetValid},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			claims := validClaims()
			claims[c.claim] = testNow.Add(c.at).Unix()
			_, err := f.v.Verify(context.Background(), joseSign(t, jose.ES256, f.k.p256, "p256", claims))
			if c.want == "" {
				if err != nil {
					t.Fatalf("Verify: %v", err)
				}
				return
			}
			if got := reasonOf(t, err); got != c.want {
				t.Fatalf("reason = %s, want %s", got, c.want)
			}
		})
	}
}

func TestVerifierRefusalOfASignedTokenNamesTheCaller(t *testing.T) {
	f := newFixture(t)
	claims := validClaims()
	claims["exp"] = testNow.Add(-time.Hour).Unix()
	_, err := f.v.Verify(context.Background(), joseSign(t, jose.ES256, f.k.p256, "p256", claims))
	var te *TokenError
	if !errors.As(err, &te) || te.Reason != ReasonExpired {
		t.Fatalf("err = %v, want expired", err)
	}
	if !te.Signed || te.Principal.Subject != "user-1" || te.Principal.Authenticated {
		t.Fatalf("refusal = signed %v principal %+v; want signed, subject user-1, not authenticated", te.Signed, te.Principal)
	}

	_, err = f.v.Verify(context.Background(), joseSign(t, jose.ES256, f.k.p256b, "p256", validClaims()))
	if !errors.As(err, &te) || te.Reason != ReasonSignature {
		t.Fatalf("err = %v, want signature", err)
	}
	if te.Signed || te.Principal.Subject != "" {
		t.Fatalf("a forged token named %+v (signed %v)", te.Principal, te.Signed)
	}
}

func TestTokenErrorNeverQuotesTheToken(t *testing.T) {
	f := newFixture(t)
	tokens := []string{
		joseSign(t, jose.ES256, f.k.p256b, "p256", validClaims()),
		rawSign(t, "HS256", []byte("k"), `{"alg":"HS256"}`, `{"sub":"x"}`),
		"not-a-token",
		strings.Repeat("a", 9000),
	}
	for _, tok := range tokens {
		_, err := f.v.Verify(context.Background(), tok)
		if err == nil {
			t.Fatal("accepted")
		}
		for _, part := range strings.Split(tok, ".") {
			if len(part) > 8 && strings.Contains(err.Error(), part) {
				t.Fatalf("error %q quotes the token", err)
			}
		}
	}
}

func TestVerifierNeverFollowsKeyURLHeaders(t *testing.T) {
	var hits atomic.Int32
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Write(jwksJSON(t, jwkJSON(t, &keys(t).p256b.PublicKey, "evil", "")))
	}))
	t.Cleanup(evil.Close)
	f := newFixture(t)
	for _, hdr := range []string{
		`{"alg":"ES256","kid":"evil","jku":"` + evil.URL + `"}`,
		`{"alg":"ES256","kid":"evil","x5u":"` + evil.URL + `"}`,
		`{"alg":"ES256","kid":"p256","jku":"` + evil.URL + `"}`,
	} {
		tok := rawSign(t, "ES256", f.k.p256b, hdr, payloadOf(t, nil))
		_, err := f.v.Verify(context.Background(), tok)
		if r := reasonOf(t, err); r != ReasonUnknownKey && r != ReasonSignature {
			t.Errorf("%s: reason %s", hdr, r)
		}
	}
	if hits.Load() != 0 {
		t.Fatalf("the verifier fetched the URL a token named (%d requests)", hits.Load())
	}
}

func TestVerifierAlgorithmsOptionNarrowsTheAllowList(t *testing.T) {
	f := newFixture(t, Algorithms("ES256"))
	if _, err := f.v.Verify(context.Background(), joseSign(t, jose.ES256, f.k.p256, "p256", validClaims())); err != nil {
		t.Fatalf("ES256: %v", err)
	}
	_, err := f.v.Verify(context.Background(), joseSign(t, jose.ES384, f.k.p384, "p384", validClaims()))
	if got := reasonOf(t, err); got != ReasonAlgorithm {
		t.Fatalf("ES384 outside the allow-list: reason %s", got)
	}
}

func TestVerifierMaxTokenSize(t *testing.T) {
	f := newFixture(t, MaxTokenSize(512))
	claims := validClaims()
	claims["pad"] = strings.Repeat("a", 400)
	_, err := f.v.Verify(context.Background(), joseSign(t, jose.ES256, f.k.p256, "p256", claims))
	if got := reasonOf(t, err); got != ReasonTooLarge {
		t.Fatalf("reason = %s", got)
	}
}

func TestVerifierRefusesBadConfigurationWithoutPanicking(t *testing.T) {
	k := keys(t)
	cases := []struct {
		name    string
		v       *JWTVerifier
		setting string
	}{
		{"Discover empty issuer", New("", testAudience), "issuer"},
		{"Discover http issuer", New("http://issuer.example", testAudience), "issuer"},
		{"Discover issuer with fragment", New("https://issuer.example#x", testAudience), "issuer"},
		{"Discover issuer with query", New("https://issuer.example?x=1", testAudience), "issuer"},
		{"Discover issuer not a URL", New("issuer", testAudience), "issuer"},
		{"Discover empty audience", New(testIssuer, ""), "audience"},
		{"JWKSURL ftp", JWKSURL("ftp://keys.example", testIssuer, testAudience), "JWKS URL"},
		{"JWKSURL user info", JWKSURL("https://u:p@keys.example", testIssuer, testAudience), "JWKS URL"},
		{"JWKSURL empty issuer", JWKSURL("https://keys.example", "", testAudience), "issuer"},
		{"KeySet no keys", KeySet(testIssuer, testAudience, nil), "keys"},
		{"KeySet private key", KeySet(testIssuer, testAudience, []crypto.PublicKey{k.p256}), "keys[0]"},
		{"KeySet 1024-bit RSA", KeySet(testIssuer, testAudience, []crypto.PublicKey{&k.rsa1024.PublicKey}), "keys[0]"},
		{"KeySet nil key", KeySet(testIssuer, testAudience, []crypto.PublicKey{nil}), "keys[0]"},
		{"Algorithms HS256", KeySet(testIssuer, testAudience, []crypto.PublicKey{&k.p256.PublicKey}, Algorithms("HS256")), "Algorithms"},
		{"Algorithms none", KeySet(testIssuer, testAudience, []crypto.PublicKey{&k.p256.PublicKey}, Algorithms("none")), "Algorithms"},
		{"Algorithms empty", KeySet(testIssuer, testAudience, []crypto.PublicKey{&k.p256.PublicKey}, Algorithms()), "Algorithms"},
		{"RetryInterval 0", New(testIssuer, testAudience, RetryInterval(0)), "RetryInterval"},
		{"Leeway 1h", New(testIssuer, testAudience, Leeway(time.Hour)), "Leeway"},
		{"MaxTokenSize 1", New(testIssuer, testAudience, MaxTokenSize(1)), "MaxTokenSize"},
		{"HTTPClient nil", New(testIssuer, testAudience, HTTPClient(nil)), "HTTPClient"},
		{"Clock nil", New(testIssuer, testAudience, Clock(nil)), "Clock"},
		{"Logger nil", New(testIssuer, testAudience, Logger(nil)), "Logger"},
		{"TokenTypes none", New(testIssuer, testAudience, TokenTypes()), "TokenTypes"},
		{"TokenTypes empty", New(testIssuer, testAudience, TokenTypes(" ")), "TokenTypes"},
		{"RefreshInterval 0", New(testIssuer, testAudience, RefreshInterval(0)), "RefreshInterval"},
		{"FetchTimeout -1", New(testIssuer, testAudience, FetchTimeout(-1)), "FetchTimeout"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.v.Open(context.Background())
			var ce *ConfigError
			if !errors.As(err, &ce) || ce.Setting != c.setting {
				t.Fatalf("Open = %v, want a *ConfigError for %s", err, c.setting)
			}
			if !strings.Contains(err.Error(), c.setting) {
				t.Fatalf("error %q does not name the setting", err)
			}
			if _, verr := c.v.Verify(context.Background(), "a.b.c"); !errors.As(verr, &ce) {
				t.Fatalf("Verify on a misconfigured verifier = %v", verr)
			}
			if err := c.v.Close(context.Background()); err != nil {
				t.Fatalf("Close: %v", err)
			}
		})
	}
}

func TestVerifierDescribesItself(t *testing.T) {
	d := New(testIssuer+"/realms/x", testAudience)
	if got := d.discoveryURL(); got != testIssuer+"/realms/x/.well-known/openid-configuration" {
		t.Errorf("DiscoveryURL = %q", got)
	}
	if got := d.Issuers(); len(got) != 1 || got[0] != testIssuer+"/realms/x" {
		t.Errorf("Issuers = %v", got)
	}
	if got := JWKSURL("https://keys.example", testIssuer, testAudience).discoveryURL(); got != "" {
		t.Errorf("JWKSURL DiscoveryURL = %q, want empty", got)
	}
}

func TestVerifierTokenTypes(t *testing.T) {
	f := newFixture(t, TokenTypes("at+jwt"))
	if _, err := f.v.Verify(context.Background(), joseSign(t, jose.ES256, f.k.p256, "p256", validClaims())); err != nil {
		t.Fatalf("typ at+jwt: %v", err)
	}
	cases := map[string]Reason{
		`{"alg":"ES256","kid":"p256","typ":"application/AT+JWT"}`: "",
		`{"alg":"ES256","kid":"p256","typ":"JWT"}`:                ReasonTokenType,
		`{"alg":"ES256","kid":"p256"}`:                            ReasonTokenType,
		`{"alg":"ES256","kid":"p256","typ":1}`:                    ReasonTokenType,
		`{"alg":"ES256","kid":"p256","typ":"at+jwt "}`:            ReasonTokenType,
	}
	for hdr, want := range cases {
		_, err := f.v.Verify(context.Background(), rawSign(t, "ES256", f.k.p256, hdr, payloadOf(t, nil)))
		if want == "" {
			if err != nil {
				t.Errorf("%s: %v", hdr, err)
			}
			continue
		}
		if got := reasonOf(t, err); got != want {
			t.Errorf("%s: reason %s, want %s", hdr, got, want)
		}
	}
	// The type is judged before the signature: a forged token of another
	// type is refused for its type, never counted as a forgery.
	forged := rawSign(t, "ES256", f.k.p256b, `{"alg":"ES256","kid":"p256","typ":"JWT"}`, payloadOf(t, nil))
	if _, err := f.v.Verify(context.Background(), forged); reasonOf(t, err) != ReasonTokenType {
		t.Errorf("forged token of type JWT: %v, want token-type", err)
	}
	// Without the option, typ is not read.
	g := newFixture(t)
	if _, err := g.v.Verify(context.Background(), rawSign(t, "ES256", g.k.p256, `{"alg":"ES256","kid":"p256","typ":"JWT"}`, payloadOf(t, nil))); err != nil {
		t.Fatalf("typ JWT without TokenTypes: %v", err)
	}
}
