package authn_test

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/svckit/svc/modules/authn/bearer"
	svcerrors "github.com/svckit/svc/modules/errors"
)

const (
	hostileIssuer   = "https://idp.hostile.test"
	hostileAudience = "api://orders"
)

type signer struct {
	key *ecdsa.PrivateKey
	t   *testing.T
}

func (s signer) sign(header map[jose.HeaderKey]any, claims map[string]any) string {
	opts := &jose.SignerOptions{ExtraHeaders: header}
	sg, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: s.key}, opts.WithHeader("kid", "k1"))
	if err != nil {
		s.t.Fatal(err)
	}
	tok, err := jwt.Signed(sg).Claims(claims).Serialize()
	if err != nil {
		s.t.Fatal(err)
	}
	return tok
}

func goodClaims() map[string]any {
	now := time.Now()
	return map[string]any{"iss": hostileIssuer, "aud": hostileAudience, "sub": "alice",
		"exp": now.Add(time.Hour).Unix(), "iat": now.Unix(), "scope": "read"}
}

func with(m map[string]any, k string, v any) map[string]any {
	m[k] = v
	return m
}

func b64(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }

// TestHostileTokensAndHeaders: named attacks on the Authorization header and
// the token, each answered with the right status, body and challenge, and
// none of them served.
func TestHostileTokensAndHeaders(t *testing.T) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	other, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	s := signer{key, t}
	forger := signer{other, t}
	v := bearer.KeySet(hostileIssuer, hostileAudience, []crypto.PublicKey{&key.PublicKey})
	if err := v.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = v.Close(context.Background()) })
	srv := gateServer(t, svcerrors.New(), exampleRouter(), v)

	good := s.sign(nil, goodClaims())
	parts := strings.Split(good, ".")
	noneHeader := b64(`{"alg":"none","typ":"JWT"}`)

	const (
		required  = "authentication-required"
		rejected  = "token-rejected"
		ambiguous = "ambiguous-credentials"
	)
	cases := []struct {
		attack string
		header http.Header
		status int
		anchor string
		reason string
	}{
		{"empty Authorization", http.Header{"Authorization": {""}}, 401, required, ""},
		{"scheme only", http.Header{"Authorization": {"Bearer"}}, 401, rejected, "malformed"},
		{"scheme and spaces", http.Header{"Authorization": {"Bearer    "}}, 401, rejected, "malformed"},
		{"Basic credentials", http.Header{"Authorization": {"Basic YTpi"}}, 401, required, ""},
		{"Digest scheme", http.Header{"Authorization": {`Digest username="a"`}}, 401, required, ""},
		{"token68 with comma", http.Header{"Authorization": {"Bearer a,b"}}, 401, rejected, "malformed"},
		{"two tokens in one header", http.Header{"Authorization": {"Bearer " + good + " " + good}}, 401, rejected, "malformed"},
		{"two Authorization headers", http.Header{"Authorization": {"Bearer " + good, "Bearer " + good}}, 400, ambiguous, ""},
		{"header and query token", nil, 400, ambiguous, ""}, // see path below
		{"CRLF smuggled in token", http.Header{"Authorization": {"Bearer abc\tdef"}}, 401, rejected, "malformed"},
		{"non-ASCII token", http.Header{"Authorization": {"Bearer tökén"}}, 401, rejected, "malformed"},
		{"padding in the middle", http.Header{"Authorization": {"Bearer ab=cd"}}, 401, rejected, "malformed"},
		{"opaque token", bearerHeader("opaque-random-string"), 401, rejected, "malformed"},
		{"one segment", bearerHeader(parts[0]), 401, rejected, "malformed"},
		{"two segments", bearerHeader(parts[0] + "." + parts[1]), 401, rejected, "malformed"},
		{"four segments", bearerHeader(good + ".x"), 401, rejected, "malformed"},
		{"JWE (five segments)", bearerHeader("a.b.c.d.e"), 401, rejected, "encrypted"},
		{"oversized token", bearerHeader(strings.Repeat("a", 100_000) + "." + parts[1] + "." + parts[2]), 401, rejected, "too-large"},
		{"alg none, empty signature", bearerHeader(noneHeader + "." + parts[1] + "."), 401, rejected, ""},
		{"alg none with the real signature", bearerHeader(noneHeader + "." + parts[1] + "." + parts[2]), 401, rejected, ""},
		{"alg NoNe", bearerHeader(b64(`{"alg":"NoNe"}`) + "." + parts[1] + "." + parts[2]), 401, rejected, ""},
		{"HS256 header", bearerHeader(b64(`{"alg":"HS256","kid":"k1"}`) + "." + parts[1] + "." + parts[2]), 401, rejected, "algorithm"},
		{"RS256 header on an EC key", bearerHeader(b64(`{"alg":"RS256","kid":"k1"}`) + "." + parts[1] + "." + parts[2]), 401, rejected, "algorithm"},
		{"duplicate alg member", bearerHeader(b64(`{"alg":"none","alg":"ES256","kid":"k1"}`) + "." + parts[1] + "." + parts[2]), 401, rejected, "malformed"},
		{"unknown crit", bearerHeader(s.sign(map[jose.HeaderKey]any{"crit": []string{"exp2"}, "exp2": 1}, goodClaims())), 401, rejected, "malformed"},
		{"jku pointing elsewhere", bearerHeader(forger.sign(map[jose.HeaderKey]any{"jku": "https://evil.test/jwks"}, goodClaims())), 401, rejected, "signature"},
		{"embedded jwk", bearerHeader(forger.sign(map[jose.HeaderKey]any{"jwk": map[string]any{"kty": "EC"}}, goodClaims())), 401, rejected, ""},
		{"signed by another key", bearerHeader(forger.sign(nil, goodClaims())), 401, rejected, "signature"},
		{"payload swapped", bearerHeader(parts[0] + "." + b64(`{"iss":"`+hostileIssuer+`","aud":"`+hostileAudience+`","sub":"root","exp":9999999999}`) + "." + parts[2]), 401, rejected, "signature"},
		{"signature truncated", bearerHeader(parts[0] + "." + parts[1] + "." + parts[2][:10]), 401, rejected, ""},
		{"expired", bearerHeader(s.sign(nil, with(goodClaims(), "exp", time.Now().Add(-time.Hour).Unix()))), 401, rejected, "expired"},
		{"no exp", bearerHeader(s.sign(nil, func() map[string]any { c := goodClaims(); delete(c, "exp"); return c }())), 401, rejected, ""},
		{"exp as a string", bearerHeader(s.sign(nil, with(goodClaims(), "exp", "9999999999"))), 401, rejected, ""},
		{"not yet valid", bearerHeader(s.sign(nil, with(goodClaims(), "nbf", time.Now().Add(time.Hour).Unix()))), 401, rejected, "not-yet-valid"},
		{"other issuer", bearerHeader(s.sign(nil, with(goodClaims(), "iss", "https://evil.test"))), 401, rejected, "issuer"},
		{"issuer with trailing slash", bearerHeader(s.sign(nil, with(goodClaims(), "iss", hostileIssuer+"/"))), 401, rejected, "issuer"},
		{"other audience", bearerHeader(s.sign(nil, with(goodClaims(), "aud", "api://billing"))), 401, rejected, "audience"},
		{"audience array without ours", bearerHeader(s.sign(nil, with(goodClaims(), "aud", []string{"a", "b"}))), 401, rejected, "audience"},
		{"kid path traversal", bearerHeader(b64(`{"alg":"ES256","kid":"../../etc/passwd"}`) + "." + parts[1] + "." + parts[2]), 401, rejected, ""},
	}
	for _, tc := range cases {
		t.Run(tc.attack, func(t *testing.T) {
			path := "/me"
			h := tc.header
			if tc.attack == "header and query token" {
				path, h = "/me?access_token="+good, bearerHeader(good)
			}
			got := do(t, srv, "GET", path, h, "")
			if got.status != tc.status || got.json["type"] != docs+tc.anchor {
				t.Fatalf("%d %s, want %d %s", got.status, got.body, tc.status, tc.anchor)
			}
			if tc.reason != "" && got.json["reason"] != tc.reason {
				t.Errorf("reason %v, want %s", got.json["reason"], tc.reason)
			}
			wantChallenge := map[string]string{required: "Bearer", rejected: `Bearer error="invalid_token"`,
				ambiguous: `Bearer error="invalid_request"`}[tc.anchor]
			if got.header.Get("WWW-Authenticate") != wantChallenge {
				t.Errorf("challenge %q, want %q", got.header.Get("WWW-Authenticate"), wantChallenge)
			}
			if strings.Contains(got.body, parts[2]) || strings.Contains(got.body, "evil") {
				t.Errorf("body quotes the request: %s", got.body)
			}
		})
	}
	// Go's client refuses control characters in headers; send them raw.
	// net/http's server answers 400 itself before the gate sees them, and
	// echoes nothing.
	raw := rawRequest(t, srv.Listener.Addr().String(), "GET /me HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \x1b[31mred\r\nConnection: close\r\n\r\n")
	if !strings.HasPrefix(raw, "HTTP/1.1 400") || strings.Contains(raw, "\x1b") || strings.Contains(raw, "hello") {
		t.Fatalf("ANSI escape in token: %q", raw)
	}
	if got := do(t, srv, "GET", "/me", bearerHeader(good), ""); got.status != 200 || got.body != "hello alice" {
		t.Fatalf("the good token is refused: %d %s", got.status, got.body)
	}
}

func rawRequest(t *testing.T, addr, req string) string {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(c, req); err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(c)
	return string(b)
}
