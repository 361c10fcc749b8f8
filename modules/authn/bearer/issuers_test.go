package bearer_test

import (
	"context"
	"encoding/base64"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/svckit/svc/modules/authn/authntest"
	"github.com/svckit/svc/modules/authn/bearer"
)

// openIssuers opens the set of verifiers v and waits for every issuer's
// keys; it closes when the test ends.
func openIssuers(t *testing.T, v bearer.Verifier) {
	t.Helper()
	c := v.(interface {
		Open(context.Context) error
		Close(context.Context) error
	})
	if err := c.Open(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	if err := authntest.WaitReady(v.(interface{ Ready() error }), 10*time.Second); err != nil {
		t.Fatal(err)
	}
}

func reasonOfErr(t *testing.T, err error) bearer.Reason {
	t.Helper()
	var te *bearer.TokenError
	if !errors.As(err, &te) {
		t.Fatalf("not a *TokenError: %v", err)
	}
	return te.Reason
}

// Issue 20, several issuers: a token goes to its own issuer's verifier,
// and only that issuer's keys are tried; an issuer nobody configured is
// refused with no fetch at all.
func TestIssuersRouteEachTokenToItsIssuer(t *testing.T) {
	a := authntest.NewIssuer(t, authntest.WithAudience("api://orders"))
	b := authntest.NewIssuer(t, authntest.WithAudience("https://orders.example.com"))
	stranger := authntest.NewIssuer(t, authntest.WithAudience("api://orders"))
	v := bearer.Issuers(a.Discover(), b.Discover())
	openIssuers(t, v)
	fetchesA, fetchesB := a.KeyFetches(), b.KeyFetches()

	for _, tc := range []struct {
		name   string
		token  string
		issuer string        // of the principal, when verified
		reason bearer.Reason // of the refusal otherwise
	}{
		{"issuer a", a.Token(), a.URL, ""},
		{"issuer b, its own audience", b.Token(), b.URL, ""},
		{"issuer a with b's audience", a.Token(authntest.Audience("https://orders.example.com")), "", bearer.ReasonAudience},
		{"an issuer nobody configured", stranger.Token(), "", bearer.ReasonIssuer},
		{"a's iss signed with b's key", b.Token(authntest.Claim("iss", a.URL), authntest.Audience("api://orders")), "", bearer.ReasonUnknownKey},
		{"no iss", a.Token(authntest.Claim("iss", nil)), "", bearer.ReasonMalformed},
		{"iss not a string", a.Token(authntest.Claim("iss", 7)), "", bearer.ReasonMalformed},
		{"iss an array naming a", a.Token(authntest.Claim("iss", []string{a.URL})), "", bearer.ReasonMalformed},
		{"iss differing in case", a.Token(authntest.Claim("iss", strings.ToUpper(a.URL))), "", bearer.ReasonIssuer},
		{"iss with a trailing slash", a.Token(authntest.Claim("iss", a.URL+"/")), "", bearer.ReasonIssuer},
		{"not a JWT", "opaque-token-value", "", bearer.ReasonMalformed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for range 2 { // the second time from the cache, or refused again
				p, err := v.Verify(t.Context(), tc.token)
				if tc.reason != "" {
					if got := reasonOfErr(t, err); got != tc.reason {
						t.Fatalf("reason %q, want %q (%v)", got, tc.reason, err)
					}
					continue
				}
				if err != nil || !p.Authenticated || p.Issuer != tc.issuer {
					t.Fatalf("%+v %v, want a caller of %s", p, err, tc.issuer)
				}
			}
		})
	}
	// A token of the stranger, or one claiming a's issuer with a key a
	// never published, makes nobody fetch: a kid a does not hold waits for
	// at most one refresh of a's set, and b is never asked.
	if b.KeyFetches() != fetchesB {
		t.Errorf("b's keys were fetched %d more times for tokens not its own", b.KeyFetches()-fetchesB)
	}
	if n := a.KeyFetches() - fetchesA; n > 1 {
		t.Errorf("a's keys were fetched %d more times, want at most the one refresh of an unknown kid", n)
	}
	if stranger.KeyFetches() != 0 {
		t.Errorf("the unconfigured issuer's keys were fetched %d times", stranger.KeyFetches())
	}
}

// A duplicate iss member must not pick one issuer and verify under the
// other: the token is refused before any issuer is asked.
func TestIssuersRefuseATokenWithTwoIssClaims(t *testing.T) {
	a := authntest.NewIssuer(t)
	b := authntest.NewIssuer(t)
	v := bearer.Issuers(a.Discover(), b.Discover())
	openIssuers(t, v)
	tok := a.Token()
	parts := strings.Split(tok, ".")
	payload := `{"iss":"` + a.URL + `","iss":"` + b.URL + `","aud":"` + a.Audience + `","sub":"x","exp":4102444800}`
	parts[1] = base64.RawURLEncoding.EncodeToString([]byte(payload))
	if got := reasonOfErr(t, verifyErr(v, strings.Join(parts, "."))); got != bearer.ReasonMalformed {
		t.Fatalf("reason %q, want malformed", got)
	}
}

func verifyErr(v bearer.Verifier, tok string) error {
	_, err := v.Verify(context.Background(), tok)
	return err
}

func TestIssuersRefuseBadSettingsAtOpenAndAtEveryVerify(t *testing.T) {
	a := authntest.NewIssuer(t)
	for _, tc := range []struct {
		name string
		v    bearer.Verifier
		want string
	}{
		{"none", bearer.Issuers(), "was given no verifier"},
		{"nil", bearer.Issuers(a.Discover(), nil), "verifier 2 is nil"},
		{"one issuer twice", bearer.Issuers(a.Discover(), a.Discover()), "names the issuer " + `"` + a.URL + `"` + " twice"},
		{"a verifier's own error", bearer.Issuers(a.Discover(), bearer.New("https://idp.example", "")), `issuer "https://idp.example": authn: verifier setting audience is empty`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			open := tc.v.(interface{ Open(context.Context) error }).Open(t.Context())
			if open == nil || !strings.Contains(open.Error(), tc.want) {
				t.Fatalf("Open: %v, want it to say %q", open, tc.want)
			}
			if _, err := tc.v.Verify(t.Context(), a.Token()); err == nil || err.Error() != open.Error() {
				t.Fatalf("Verify: %v, want the settings error", err)
			}
			var ce *bearer.ConfigError
			if !errors.As(open, &ce) {
				t.Fatalf("%v is not a *bearer.ConfigError", open)
			}
		})
	}
}

// Ready names each issuer without keys; the set is ready only once every
// issuer can verify.
func TestIssuersReadyNamesTheIssuerWithoutKeys(t *testing.T) {
	a := authntest.NewIssuer(t)
	down := bearer.JWKSURL("http://127.0.0.1:1/jwks", "https://down.example", "api", bearer.RetryInterval(time.Hour))
	v := bearer.Issuers(a.Discover(), down)
	c := v.(interface {
		Open(context.Context) error
		Close(context.Context) error
		Ready() error
	})
	if err := c.Ready(); err == nil {
		t.Fatal("ready before Open")
	}
	if err := c.Open(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := c.Ready()
		if err == nil {
			t.Fatal("ready with one issuer's keys unreachable")
		}
		if !errors.Is(err, bearer.ErrKeysUnavailable) || !strings.Contains(err.Error(), "https://down.example") {
			t.Fatalf("readiness error %v: want ErrKeysUnavailable naming https://down.example", err)
		}
		if !strings.Contains(err.Error(), a.URL) { // a has its keys now
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a never got its keys: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	// a's callers are served meanwhile.
	if p, err := v.Verify(t.Context(), a.Token()); err != nil || p.Issuer != a.URL {
		t.Fatalf("%+v %v", p, err)
	}
}
