package authn_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/authntest"
	svcerrors "github.com/svckit/svc/modules/errors"
)

// openIssuers opens the set of verifiers v and waits for every issuer's
// keys; it closes when the test ends.
func openIssuers(t *testing.T, v authn.Verifier) {
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

func reasonOfErr(t *testing.T, err error) authn.Reason {
	t.Helper()
	var te *authn.TokenError
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
	v := authn.Issuers(a.Discover(), b.Discover())
	openIssuers(t, v)
	fetchesA, fetchesB := a.KeyFetches(), b.KeyFetches()

	for _, tc := range []struct {
		name   string
		token  string
		issuer string       // of the principal, when verified
		reason authn.Reason // of the refusal otherwise
	}{
		{"issuer a", a.Token(), a.URL, ""},
		{"issuer b, its own audience", b.Token(), b.URL, ""},
		{"issuer a with b's audience", a.Token(authntest.Audience("https://orders.example.com")), "", authn.ReasonAudience},
		{"an issuer nobody configured", stranger.Token(), "", authn.ReasonIssuer},
		{"a's iss signed with b's key", b.Token(authntest.Claim("iss", a.URL), authntest.Audience("api://orders")), "", authn.ReasonUnknownKey},
		{"no iss", a.Token(authntest.Claim("iss", nil)), "", authn.ReasonMalformed},
		{"iss not a string", a.Token(authntest.Claim("iss", 7)), "", authn.ReasonMalformed},
		{"iss an array naming a", a.Token(authntest.Claim("iss", []string{a.URL})), "", authn.ReasonMalformed},
		{"iss differing in case", a.Token(authntest.Claim("iss", strings.ToUpper(a.URL))), "", authn.ReasonIssuer},
		{"iss with a trailing slash", a.Token(authntest.Claim("iss", a.URL+"/")), "", authn.ReasonIssuer},
		{"not a JWT", "opaque-token-value", "", authn.ReasonMalformed},
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
	v := authn.Issuers(a.Discover(), b.Discover())
	openIssuers(t, v)
	tok := a.Token()
	parts := strings.Split(tok, ".")
	payload := `{"iss":"` + a.URL + `","iss":"` + b.URL + `","aud":"` + a.Audience + `","sub":"x","exp":4102444800}`
	parts[1] = b64(payload)
	if got := reasonOfErr(t, verifyErr(v, strings.Join(parts, "."))); got != authn.ReasonMalformed {
		t.Fatalf("reason %q, want malformed", got)
	}
}

func verifyErr(v authn.Verifier, tok string) error {
	_, err := v.Verify(context.Background(), tok)
	return err
}

func TestIssuersRefuseBadSettingsAtOpenAndAtEveryVerify(t *testing.T) {
	a := authntest.NewIssuer(t)
	for _, tc := range []struct {
		name string
		v    authn.Verifier
		want string
	}{
		{"none", authn.Issuers(), "was given no verifier"},
		{"nil", authn.Issuers(a.Discover(), nil), "verifier 2 is nil"},
		{"one issuer twice", authn.Issuers(a.Discover(), a.Discover()), "names the issuer " + `"` + a.URL + `"` + " twice"},
		{"a verifier's own error", authn.Issuers(a.Discover(), authn.Discover("https://idp.example", "")), `issuer "https://idp.example": authn: verifier setting audience is empty`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			open := tc.v.(interface{ Open(context.Context) error }).Open(t.Context())
			if open == nil || !strings.Contains(open.Error(), tc.want) {
				t.Fatalf("Open: %v, want it to say %q", open, tc.want)
			}
			if _, err := tc.v.Verify(t.Context(), a.Token()); err == nil || err.Error() != open.Error() {
				t.Fatalf("Verify: %v, want the settings error", err)
			}
			var ce *authn.ConfigError
			if !errors.As(open, &ce) {
				t.Fatalf("%v is not a *authn.ConfigError", open)
			}
		})
	}
}

// Ready names each issuer without keys; the set is ready only once every
// issuer can verify.
func TestIssuersReadyNamesTheIssuerWithoutKeys(t *testing.T) {
	a := authntest.NewIssuer(t)
	down := authn.JWKSURL("http://127.0.0.1:1/jwks", "https://down.example", "api", authn.RetryInterval(time.Hour))
	v := authn.Issuers(a.Discover(), down)
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
		if !errors.Is(err, authn.ErrKeysUnavailable) || !strings.Contains(err.Error(), "https://down.example") {
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

// The protected-resource metadata (RFC 9728) lists every issuer.
func TestIssuersAreTheMetadatasAuthorizationServers(t *testing.T) {
	a := authntest.NewIssuer(t)
	b := authntest.NewIssuer(t)
	v := authn.Issuers(b.Discover(), a.Discover())
	openIssuers(t, v)
	srv := gateServer(t, svcerrors.New(), exampleRouter(), v, authn.Resource("https://api.example.com"))
	got := do(t, srv, "GET", "/.well-known/oauth-protected-resource", nil, "")
	var doc struct {
		AuthorizationServers []string `json:"authorization_servers"`
	}
	if err := json.Unmarshal([]byte(got.body), &doc); err != nil || got.status != 200 {
		t.Fatalf("%d %s %v", got.status, got.body, err)
	}
	want := []string{a.URL, b.URL}
	if a.URL > b.URL {
		want = []string{b.URL, a.URL}
	}
	if strings.Join(doc.AuthorizationServers, " ") != strings.Join(want, " ") {
		t.Fatalf("authorization_servers %v, want %v (sorted)", doc.AuthorizationServers, want)
	}
	// And the gate admits each issuer's callers.
	for _, iss := range []*authntest.Issuer{a, b} {
		h := bearer(iss.Token())
		if got := do(t, srv, "GET", "/me", h, ""); got.status != 200 {
			t.Fatalf("%s's caller: %d %s", iss.URL, got.status, got.body)
		}
	}
}
