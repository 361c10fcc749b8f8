package authntest_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/authntest"
	"github.com/svckit/svc/modules/authn/bearer"
)

func TestIssuerTokensVerifyForEveryAlgorithm(t *testing.T) {
	for _, alg := range []string{"ES256", "RS256", "PS256", "EdDSA"} {
		t.Run(alg, func(t *testing.T) {
			iss := authntest.NewIssuer(t, authntest.Algorithm(alg))
			v := iss.Verifier()
			p, err := v.Verify(context.Background(), iss.Token(authntest.Subject("alice"), authntest.Scopes("read", "write")))
			if err != nil {
				t.Fatalf("Verify: %v", err)
			}
			if p.Subject != "alice" || p.Issuer != iss.URL || !p.Scopes.Has("read", "write") || !p.Authenticated {
				t.Fatalf("principal = %+v", p)
			}
		})
	}
}

func TestIssuerTokenOptionsReachTheVerifier(t *testing.T) {
	iss := authntest.NewIssuer(t)
	v := iss.Verifier()
	cases := []struct {
		name   string
		opts   []authntest.TokenOption
		reason bearer.Reason // "" = accepted
	}{
		{"defaults", nil, ""},
		{"expired", []authntest.TokenOption{authntest.Expires(time.Now().Add(-time.Hour))}, bearer.ReasonExpired},
		{"not yet valid", []authntest.TokenOption{authntest.NotBefore(time.Now().Add(time.Hour))}, bearer.ReasonNotYetValid},
		{"other audience", []authntest.TokenOption{authntest.Audience("https://other.example")}, bearer.ReasonAudience},
		{"no exp", []authntest.TokenOption{authntest.Claim("exp", nil)}, bearer.ReasonInvalidClaims},
		{"custom claim", []authntest.TokenOption{authntest.Claim("tenant", "acme")}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := v.Verify(context.Background(), iss.Token(c.opts...))
			var te *bearer.TokenError
			switch {
			case c.reason == "" && err != nil:
				t.Fatalf("Verify: %v", err)
			case c.reason != "" && (!errors.As(err, &te) || te.Reason != c.reason):
				t.Fatalf("Verify error = %v, want reason %s", err, c.reason)
			}
		})
	}
}

func TestIssuerRotationIsFetchedOnce(t *testing.T) {
	iss := authntest.NewIssuer(t)
	v := iss.Verifier(bearer.RetryInterval(time.Millisecond))
	before := iss.KeyFetches()
	if before < 1 {
		t.Fatalf("KeyFetches = %d after the verifier loaded keys", before)
	}
	iss.Rotate(true)
	if _, err := v.Verify(context.Background(), iss.Token()); err != nil {
		t.Fatalf("token of the rotated key: %v", err)
	}
	if got := iss.KeyFetches(); got != before+1 {
		t.Fatalf("KeyFetches = %d, want %d (one refresh for the new kid)", got, before+1)
	}
}

func TestWithPrincipalServesHandlerTests(t *testing.T) {
	h := func(w http.ResponseWriter, r *http.Request) {
		p, ok := authn.PrincipalFrom(r.Context())
		if !ok || !p.Scopes.Has("admin") {
			w.WriteHeader(http.StatusForbidden)
			return
		}
		_, _ = w.Write([]byte(p.Subject))
	}
	rec := httptest.NewRecorder()
	h(rec, authntest.WithPrincipal(httptest.NewRequest("GET", "/admin", nil), authntest.Caller("root", "admin")))
	if rec.Code != 200 || rec.Body.String() != "root" {
		t.Fatalf("got %d %q", rec.Code, rec.Body)
	}
	rec = httptest.NewRecorder()
	h(rec, httptest.NewRequest("GET", "/admin", nil))
	if rec.Code != http.StatusForbidden {
		t.Fatalf("without a principal: %d", rec.Code)
	}
}

func TestReadyReportsMissingKeys(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	v := bearer.New(srv.URL, "aud")
	if err := v.Ready(); !errors.Is(err, bearer.ErrKeysUnavailable) {
		t.Fatalf("Ready before Open = %v, want ErrKeysUnavailable", err)
	}
	if err := authntest.WaitReady(v, 50*time.Millisecond); !errors.Is(err, bearer.ErrKeysUnavailable) {
		t.Fatalf("WaitReady = %v", err)
	}
}

// fatalTB records a Fatalf and ends the goroutine as testing.T does.
type fatalTB struct {
	testing.TB
	msg string
}

func (f *fatalTB) Helper() {}
func (f *fatalTB) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func TestNewIssuerRefusesAnUnknownAlgorithm(t *testing.T) {
	for _, alg := range []string{"HS256", "none", "ES384", ""} {
		f := &fatalTB{TB: t}
		done := make(chan *authntest.Issuer)
		go func() {
			var iss *authntest.Issuer
			defer func() { done <- iss }()
			iss = authntest.NewIssuer(f, authntest.Algorithm(alg))
		}()
		if iss := <-done; iss != nil || !strings.Contains(f.msg, "ES256, RS256, PS256, EdDSA") {
			t.Fatalf("Algorithm(%q): issuer %v, failure %q; want the test failed naming the algorithms", alg, iss, f.msg)
		}
	}
}

// WithAudience is both the default aud of minted tokens and the audience
// the issuer's verifier expects.
func TestWithAudienceSetsTokensAndVerifier(t *testing.T) {
	iss := authntest.NewIssuer(t, authntest.WithAudience("https://orders.example"))
	v := iss.Verifier()
	if _, err := v.Verify(context.Background(), iss.Token()); err != nil {
		t.Fatalf("default token: %v", err)
	}
	var te *bearer.TokenError
	if _, err := v.Verify(context.Background(), iss.Token(authntest.Audience("https://api.test.example"))); !errors.As(err, &te) || te.Reason != bearer.ReasonAudience {
		t.Fatalf("token for the default audience: %v, want reason audience", err)
	}
}

// Token's typ header is at+jwt (RFC 9068) unless Type says otherwise, and
// Type("") leaves it out.
func TestTokenTypeHeader(t *testing.T) {
	iss := authntest.NewIssuer(t)
	for _, c := range []struct {
		opts []authntest.TokenOption
		typ  any
	}{{nil, "at+jwt"}, {[]authntest.TokenOption{authntest.Type("JWT")}, "JWT"}, {[]authntest.TokenOption{authntest.Type("")}, nil}} {
		tok := iss.Token(c.opts...)
		raw, err := base64.RawURLEncoding.DecodeString(tok[:strings.IndexByte(tok, '.')])
		if err != nil {
			t.Fatal(err)
		}
		var hdr map[string]any
		if err := json.Unmarshal(raw, &hdr); err != nil {
			t.Fatal(err)
		}
		if hdr["typ"] != c.typ {
			t.Fatalf("typ = %v, want %v (header %s)", hdr["typ"], c.typ, raw)
		}
	}
}
