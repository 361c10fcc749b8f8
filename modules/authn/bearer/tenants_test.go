package bearer

import (
	"context"
	"crypto"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// entra is a multi-tenant provider shaped like Microsoft Entra: one
// discovery document per tenant at /{tenant}/v2.0, naming its own issuer,
// and one JWK Set for every tenant.
type entra struct {
	*httptest.Server
	t       *testing.T
	missing map[string]bool // tenants whose discovery answers 404

	mu        sync.Mutex
	discovery map[string]int // discovery requests by tenant
}

func newEntra(t *testing.T) *entra {
	k := keys(t)
	e := &entra{t: t, missing: map[string]bool{}, discovery: map[string]int{}}
	jwks := jwksJSON(t, jwkJSON(t, k.p256.Public(), "k1", "ES256"))
	e.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/keys" {
			_, _ = w.Write(jwks)
			return
		}
		tenant, ok := strings.CutSuffix(strings.TrimPrefix(r.URL.Path, "/"), "/v2.0/.well-known/openid-configuration")
		e.mu.Lock()
		e.discovery[tenant]++
		e.mu.Unlock()
		if !ok || e.missing[tenant] {
			http.NotFound(w, r)
			return
		}
		fmt.Fprintf(w, `{"issuer":%q,"jwks_uri":%q}`, e.issuer(tenant), e.URL+"/keys")
	}))
	t.Cleanup(e.Close)
	return e
}

func (e *entra) template() string            { return e.URL + "/{tenantid}/v2.0" }
func (e *entra) issuer(tenant string) string { return e.URL + "/" + tenant + "/v2.0" }

func (e *entra) discoveries(tenant string) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.discovery[tenant]
}

// token mints a token of tenant's issuer whose tid is tid (none when "").
func (e *entra) token(tenant, tid string) string {
	c := map[string]any{"iss": e.issuer(tenant), "aud": "api://orders", "sub": "user-1",
		"exp": time.Now().Add(time.Hour).Unix()}
	if tid != "" {
		c["tid"] = tid
	}
	return joseSign(e.t, jose.ES256, keys(e.t).p256, "k1", c)
}

func openTemplate(t *testing.T, v *JWTVerifier) {
	t.Helper()
	if err := v.Open(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = v.Close(context.Background()) })
}

// Issue 20, tenant templates: the tenants named are discovered at Open,
// each token must name one of them in iss and the same one in tid, and a
// tenant not named is refused with no fetch.
func TestTenantsNamedAreTheOnlyOnesTrusted(t *testing.T) {
	e := newEntra(t)
	v := New(e.template(), "api://orders", Tenants("t1", "t2"), RetryInterval(time.Millisecond))
	openTemplate(t, v)
	deadline := time.Now().Add(10 * time.Second)
	for v.Ready() != nil {
		if time.Now().After(deadline) {
			t.Fatalf("not ready: %v", v.Ready())
		}
		time.Sleep(5 * time.Millisecond)
	}
	if got := strings.Join(v.Issuers(), " "); got != e.issuer("t1")+" "+e.issuer("t2") {
		t.Fatalf("Issuers() = %s", got)
	}
	for _, tc := range []struct {
		name   string
		token  string
		reason Reason
	}{
		{"t1", e.token("t1", "t1"), ""},
		{"t2", e.token("t2", "t2"), ""},
		{"a tenant not named", e.token("t3", "t3"), ReasonIssuer},
		{"tid naming another tenant", e.token("t1", "t2"), ReasonIssuer},
		{"no tid", e.token("t1", ""), ReasonIssuer},
		{"the template itself as iss", joseSign(t, jose.ES256, keys(t).p256, "k1", map[string]any{"iss": e.template(), "tid": "t1", "aud": "api://orders", "exp": time.Now().Add(time.Hour).Unix()}), ReasonIssuer},
		{"a tenant with a slash", joseSign(t, jose.ES256, keys(t).p256, "k1", map[string]any{"iss": e.URL + "/t1/x/v2.0", "aud": "api://orders", "exp": time.Now().Add(time.Hour).Unix()}), ReasonIssuer},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := v.Verify(t.Context(), tc.token)
			if tc.reason == "" {
				if err != nil || !p.Authenticated || p.Issuer != e.issuer(tc.name) {
					t.Fatalf("%+v %v", p, err)
				}
				return
			}
			if got := reasonOf(t, err); got != tc.reason {
				t.Fatalf("reason %q, want %q (%v)", got, tc.reason, err)
			}
		})
	}
	if n := e.discoveries("t3"); n != 0 {
		t.Fatalf("a tenant not named was discovered %d times", n)
	}
}

// AnyTenant discovers a tenant when a token first names it (the token
// waits for its keys), once however many tokens follow, drops one that
// does not answer, and discovers at most ten new tenants a minute.
func TestAnyTenantDiscoversTenantsAsTokensNameThem(t *testing.T) {
	e := newEntra(t)
	e.missing["ghost"] = true
	now := time.Now()
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	v := New(e.template(), "api://orders", AnyTenant(), Clock(clock), RetryInterval(time.Millisecond))
	openTemplate(t, v)
	if err := v.Ready(); err != nil {
		t.Fatalf("AnyTenant not ready once open: %v", err)
	}
	for range 3 {
		if p, err := v.Verify(t.Context(), e.token("a1", "a1")); err != nil || p.Issuer != e.issuer("a1") {
			t.Fatalf("a new tenant's first token: %+v %v", p, err)
		}
	}
	if n := e.discoveries("a1"); n != 1 {
		t.Fatalf("tenant a1 discovered %d times, want 1", n)
	}
	// A tenant whose discovery fails is answered 503 (keys unavailable)
	// and not held: the next token asks again.
	asked := 0
	for i := 1; i <= 2; i++ {
		if _, err := v.Verify(t.Context(), e.token("ghost", "ghost")); !errors.Is(err, ErrKeysUnavailable) {
			t.Fatalf("a tenant that does not answer: %v, want ErrKeysUnavailable", err)
		}
		// The loader may retry once more before it is stopped.
		if n := e.discoveries("ghost"); n <= asked {
			t.Fatalf("ghost discovered %d times after %d tokens: the second token did not ask again", n, i)
		} else {
			asked = n
		}
	}
	// a1 and ghost twice spent 3 of the 10 new tenants of this minute.
	for i := range 7 {
		id := fmt.Sprintf("b%d", i)
		if _, err := v.Verify(t.Context(), e.token(id, id)); err != nil {
			t.Fatalf("new tenant %s: %v", id, err)
		}
	}
	_, err := v.Verify(t.Context(), e.token("late", "late"))
	if !errors.Is(err, ErrKeysUnavailable) || !strings.Contains(err.Error(), "10 tenants were discovered this minute") {
		t.Fatalf("the 11th new tenant of a minute: %v", err)
	}
	if e.discoveries("late") != 0 {
		t.Fatal("a tenant over the budget was discovered")
	}
	// Tenants held are still served; a minute later the budget is whole.
	if _, err := v.Verify(t.Context(), e.token("a1", "a1")); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	now = now.Add(time.Minute)
	mu.Unlock()
	if _, err := v.Verify(t.Context(), e.token("late", "late")); err != nil {
		t.Fatalf("a minute later: %v", err)
	}
}

// At most maxHeldTenants are held; the least recently used goes first.
func TestAnyTenantHoldsABoundedNumberOfTenants(t *testing.T) {
	e := newEntra(t)
	now := time.Now()
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); now = now.Add(5 * time.Second); return now } // new tenants stay within the budget, tokens within their hour
	v := New(e.template(), "api://orders", AnyTenant(), Clock(clock), RetryInterval(time.Millisecond), CacheBytes(0))
	openTemplate(t, v)
	for i := range maxHeldTenants + 5 {
		id := fmt.Sprintf("t%d", i)
		if _, err := v.Verify(t.Context(), e.token(id, id)); err != nil {
			t.Fatalf("tenant %s: %v", id, err)
		}
		if i == 0 {
			continue
		}
		// t0 stays the most recently used.
		if _, err := v.Verify(t.Context(), e.token("t0", "t0")); err != nil {
			t.Fatal(err)
		}
	}
	v.tenants.mu.Lock()
	held := len(v.tenants.held)
	_, t0 := v.tenants.held["t0"]
	_, t1 := v.tenants.held["t1"]
	v.tenants.mu.Unlock()
	if held != maxHeldTenants || !t0 || t1 {
		t.Fatalf("held %d tenants (t0 %v, t1 %v), want %d with t0 and without t1", held, t0, t1, maxHeldTenants)
	}
	if e.discoveries("t0") != 1 {
		t.Fatalf("t0 discovered %d times", e.discoveries("t0"))
	}
}

func TestTenantSettingsRefused(t *testing.T) {
	const tpl = "https://login.example.com/{tenantid}/v2.0"
	for _, tc := range []struct {
		name   string
		v      *JWTVerifier
		reason string
	}{
		{"a template with no tenants", New(tpl, "api"), "name the tenants it may stand for"},
		{"tenants for a plain issuer", New("https://login.example.com/t1/v2.0", "api", Tenants("t1")), "only for an issuer template"},
		{"both", New(tpl, "api", Tenants("t1"), AnyTenant()), "both given"},
		{"in the host", New("https://{tenantid}.example.com/v2.0", "api", AnyTenant()), ""},
		{"inside a segment", New("https://login.example.com/x{tenantid}/v2.0", "api", AnyTenant()), "whole path segment"},
		{"twice", New("https://login.example.com/{tenantid}/{tenantid}", "api", AnyTenant()), "twice"},
		{"a bad tenant", New(tpl, "api", Tenants("t1", "../x")), "a tenant is 1 to 64"},
		{"an empty tenant", New(tpl, "api", Tenants("")), "a tenant is 1 to 64"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.v.Open(t.Context())
			var ce *ConfigError
			if !errors.As(err, &ce) || !strings.Contains(err.Error(), tc.reason) {
				t.Fatalf("Open: %v, want a *ConfigError saying %q", err, tc.reason)
			}
			if _, verr := tc.v.Verify(t.Context(), "a.b.c"); verr == nil || verr.Error() != err.Error() {
				t.Fatalf("Verify: %v", verr)
			}
		})
	}
}

// A template in bearer.Issuers beside a plain issuer: each token goes to
// its own, and the metadata lists the plain issuer and the named tenants.
func TestIssuersWithATemplate(t *testing.T) {
	e := newEntra(t)
	k := keys(t)
	plain := KeySet("https://plain.example", "api://orders", []crypto.PublicKey{k.p256b.Public()})
	set := Issuers(plain, New(e.template(), "api://orders", Tenants("t1"), RetryInterval(time.Millisecond))).(*issuerSet)
	if err := set.Open(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = set.Close(context.Background()) })
	deadline := time.Now().Add(10 * time.Second)
	for set.Ready() != nil {
		if time.Now().After(deadline) {
			t.Fatalf("not ready: %v", set.Ready())
		}
		time.Sleep(5 * time.Millisecond)
	}
	if got := strings.Join(set.Issuers(), " "); got != e.issuer("t1")+" https://plain.example" {
		t.Fatalf("Issuers() = %s", got)
	}
	plainToken := joseSign(t, jose.ES256, k.p256b, "", map[string]any{"iss": "https://plain.example", "aud": "api://orders", "sub": "u", "exp": time.Now().Add(time.Hour).Unix()})
	for tok, iss := range map[string]string{plainToken: "https://plain.example", e.token("t1", "t1"): e.issuer("t1")} {
		if p, err := set.Verify(t.Context(), tok); err != nil || p.Issuer != iss {
			t.Fatalf("%s: %+v %v", iss, p, err)
		}
	}
	if got := reasonOf(t, verifyErrOf(set, e.token("t9", "t9"))); got != ReasonIssuer {
		t.Fatalf("a tenant not named: %q", got)
	}
}

func verifyErrOf(v Verifier, tok string) error {
	_, err := v.Verify(context.Background(), tok)
	return err
}

// Tenant discovery refuses private and loopback addresses, unless the
// template's own host is one, and a redirect to another host.
func TestTenantDiscoveryStaysOnPublicAddressesAndItsHost(t *testing.T) {
	local := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("{}")) }))
	t.Cleanup(local.Close)
	if _, err := tenantHTTPClient(false).Get(local.URL); err == nil || !strings.Contains(err.Error(), "not a public address") {
		t.Fatalf("a loopback address for a public template: %v", err)
	}
	if resp, err := tenantHTTPClient(true).Get(local.URL); err != nil {
		t.Fatalf("a loopback template's own host: %v", err)
	} else {
		resp.Body.Close()
	}
	redirect := httptest.NewServer(http.RedirectHandler(local.URL, http.StatusFound))
	t.Cleanup(redirect.Close)
	if _, err := tenantHTTPClient(true).Get(redirect.URL); err == nil || !strings.Contains(err.Error(), "leaves the issuer's host") {
		t.Fatalf("a redirect to another host: %v", err)
	}
}

// Issue 20: the RFC 9728 metadata lists a template for what it stands
// for: the named tenants' issuers for Tenants, the template itself for
// AnyTenant (no tenant is named; Entra's multi-tenant discovery document
// names the same string as its issuer), beside the plain issuers.
func TestMetadataListsIssuerTemplates(t *testing.T) {
	const tpl = "https://login.example.com/{tenantid}/v2.0"
	plain := func() *JWTVerifier {
		return KeySet("https://plain.example", "api", []crypto.PublicKey{keys(t).p256.Public()})
	}
	for _, tt := range []struct {
		name string
		v    Verifier
		want []string
	}{
		{"AnyTenant", New(tpl, "api", AnyTenant()), []string{tpl}},
		{"Tenants", New(tpl, "api", Tenants("t2", "t1")), []string{"https://login.example.com/t1/v2.0", "https://login.example.com/t2/v2.0"}},
		{"AnyTenant in Issuers", Issuers(plain(), New(tpl, "api", AnyTenant())), []string{"https://login.example.com/{tenantid}/v2.0", "https://plain.example"}},
		{"Tenants in Issuers", Issuers(plain(), New(tpl, "api", Tenants("t1"))), []string{"https://login.example.com/t1/v2.0", "https://plain.example"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			// The gate's protected-resource metadata lists these as its
			// authorization_servers.
			got := tt.v.(interface{ Issuers() []string }).Issuers()
			if !slices.Equal(got, tt.want) {
				t.Fatalf("Issuers() %q, want %q", got, tt.want)
			}
		})
	}
}
