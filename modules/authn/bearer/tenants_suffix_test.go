package bearer

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// Issue 37 item 16: an iss with the template's prefix and another suffix
// of the same length (".../t0/v1.0" under ".../{tenantid}/v2.0") names no
// tenant. It is refused as issuer before any tenant is looked up: no
// discovery request, and none of AnyTenant's ten new tenants a minute
// spent, so a real new tenant still gets its turn afterwards. Without the
// suffix check in tenantOf, each such token would discover "t<i>" and
// spend the minute's budget on them.
func TestTenantTemplateRefusesAnotherSuffix(t *testing.T) {
	e := newEntra(t)
	now := time.Now()
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	v := New(e.template(), "api://orders", AnyTenant(), Clock(clock), RetryInterval(time.Millisecond))
	openTemplate(t, v)
	set := Issuers(v) // the set reads the template's tenants too
	if err := set.(*issuerSet).err; err != nil {
		t.Fatal(err)
	}
	for i := range newTenantsPerMinute {
		id := fmt.Sprintf("t%d", i)
		tok := joseSign(t, jose.ES256, keys(t).p256, "k1", map[string]any{
			"iss": e.URL + "/" + id + "/v1.0", "tid": id, "aud": "api://orders", "exp": now.Add(time.Hour).Unix()})
		for name, verifier := range map[string]Verifier{"template": v, "Issuers": set} {
			if _, err := verifier.Verify(t.Context(), tok); reasonOf(t, err) != ReasonIssuer {
				t.Fatalf("%s, iss .../%s/v1.0: %v, want reason issuer", name, id, err)
			}
		}
		if n := e.discoveries(id); n != 0 {
			t.Fatalf("iss .../%s/v1.0 discovered tenant %s %d times", id, id, n)
		}
	}
	// The minute's budget of new tenants is whole.
	if p, err := v.Verify(t.Context(), e.token("fresh", "fresh")); err != nil || p.Issuer != e.issuer("fresh") {
		t.Fatalf("a new tenant after the refused ones: %+v %v", p, err)
	}
}
