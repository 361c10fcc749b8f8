package devissuer_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/svckit/svc/devissuer"
	"github.com/svckit/svc/modules/authn/authntest"
	"github.com/svckit/svc/modules/authn/bearer"
	"github.com/svckit/svc/modules/oauthclient"
	"github.com/svckit/svc/secret"
)

// open opens v and waits for its keys; it closes with the test.
// (bearer.Issuers answers an bearer.Verifier that has them.)
func open(t *testing.T, av bearer.Verifier) {
	t.Helper()
	v, ok := av.(interface {
		Open(context.Context) error
		Close(context.Context) error
		Ready() error
	})
	if !ok {
		t.Fatalf("%T has no Open, Close or Ready", av)
	}
	if err := v.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close(context.Background()) })
	if err := authntest.WaitReady(v, 10*time.Second); err != nil {
		t.Fatal(err)
	}
}

// Two issuers of one server, each with its own keys and audience, pass
// one svc verifier; each one's token is refused for the other's
// audience; svc's client discovers the second by RFC 8414's path rule.
func TestSeveralIssuersFromOneServer(t *testing.T) {
	t.Parallel()
	bank := start(t, devissuer.Options{Audience: "ledger"})
	partner, err := bank.Another("/partner", devissuer.Options{Audience: "ledger-partner", ClientID: "p", ClientSecret: "ps"})
	if err != nil {
		t.Fatal(err)
	}
	if partner.URL != bank.URL+"/partner" || partner.KeyID() == bank.KeyID() {
		t.Fatalf("partner %s %s", partner.URL, partner.KeyID())
	}
	if _, err := bank.Another("/partner", devissuer.Options{}); err == nil {
		t.Fatal("a path twice")
	}
	if _, err := bank.Another("/../x", devissuer.Options{}); err == nil {
		t.Fatal("a dot segment")
	}
	v := bearer.Issuers(bearer.New(bank.URL, "ledger"), bearer.New(partner.URL, "ledger-partner"))
	open(t, v)
	for _, iss := range []*devissuer.Issuer{bank, partner} {
		tok, _ := iss.Mint(devissuer.Token{Subject: "alice"})
		if p, err := v.Verify(context.Background(), tok); err != nil || p.Issuer != iss.URL {
			t.Errorf("%s: %+v %v", iss.URL, p, err)
		}
	}
	wrong, _ := partner.Mint(devissuer.Token{Subject: "alice", Audience: "ledger"})
	if _, err := v.Verify(context.Background(), wrong); err == nil {
		t.Error("the partner's token for the bank's audience passed")
	}
	c := openClient(t, partner, oauthclient.ClientID("p"), oauthclient.ClientSecret(secret.String("ps")))
	if tok := fetch(t, c, "x"); claimsOf(t, tok.Value)["iss"] != partner.URL {
		t.Fatalf("the partner's client got %v", claimsOf(t, tok.Value))
	}
}

// Tenant-shaped issuers pass a verifier of the template for the tenants
// it names; another tenant's token is refused.
func TestTenantIssuers(t *testing.T) {
	t.Parallel()
	iss := start(t, devissuer.Options{Audience: "ledger"})
	contoso, err := iss.Tenant("contoso")
	if err != nil {
		t.Fatal(err)
	}
	fabrikam, _ := iss.Tenant("fabrikam")
	if again, _ := iss.Tenant("contoso"); again != contoso || !strings.HasSuffix(contoso.URL, "/contoso/v2.0") {
		t.Fatalf("tenant %s", contoso.URL)
	}
	if _, err := iss.Tenant("a/b"); err == nil {
		t.Fatal("a tenant with a slash")
	}
	v := bearer.New(iss.TenantTemplate(), "ledger", bearer.Tenants("contoso"))
	if err := v.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer v.Close(context.Background())
	tok, _ := contoso.Mint(devissuer.Token{Subject: "alice"})
	if claimsOf(t, tok)["tid"] != "contoso" {
		t.Fatalf("no tid: %v", claimsOf(t, tok))
	}
	var p bearer.Principal
	deadline := time.Now().Add(10 * time.Second)
	for p, err = v.Verify(context.Background(), tok); err != nil && time.Now().Before(deadline); p, err = v.Verify(context.Background(), tok) {
		time.Sleep(20 * time.Millisecond) // the tenant's keys load in the background
	}
	if err != nil || p.Issuer != contoso.URL {
		t.Fatalf("contoso: %+v %v", p, err)
	}
	other, _ := fabrikam.Mint(devissuer.Token{Subject: "alice"})
	if _, err := v.Verify(context.Background(), other); err == nil {
		t.Fatal("fabrikam's token passed")
	}
}

// Rotation: a token of the new key verifies with a verifier opened
// before it, and one of the old key too until the old key is retired
// (POST /rotate?retire=true does both steps).
func TestKeyRotation(t *testing.T) {
	t.Parallel()
	iss := start(t, devissuer.Options{})
	v := bearer.New(iss.URL, iss.Audience, bearer.RetryInterval(50*time.Millisecond))
	open(t, v)
	old, _ := iss.Mint(devissuer.Token{Subject: "alice"})
	oldKid := iss.KeyID()
	if err := iss.Rotate(); err != nil || iss.KeyID() == oldKid {
		t.Fatalf("rotate: %v", err)
	}
	fresh, _ := iss.Mint(devissuer.Token{Subject: "bob"})
	var err error
	deadline := time.Now().Add(10 * time.Second)
	for _, err = v.Verify(context.Background(), fresh); err != nil && time.Now().Before(deadline); _, err = v.Verify(context.Background(), fresh) {
		time.Sleep(20 * time.Millisecond) // fetches start at most once per RetryInterval
	}
	if err != nil {
		t.Fatalf("the new key's token: %v", err)
	}
	if _, err := v.Verify(context.Background(), old); err != nil {
		t.Fatalf("the old key's token before retiring: %v", err)
	}
	status, _, body := send(t, iss.URL+"/rotate?retire=true", nil, nil)
	keys, _ := body["keys"].([]any)
	if status != 200 || len(keys) != 1 || keys[0].(map[string]any)["kid"] != iss.KeyID() {
		t.Fatalf("POST /rotate: %d %v", status, body)
	}
	if status, _, body := send(t, iss.URL+"/rotate?keep=1", nil, nil); status != 400 || body["error"] != "invalid_request" {
		t.Fatalf("an unknown parameter: %d %v", status, body)
	}
}
