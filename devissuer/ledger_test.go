package devissuer_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"go.uber.org/fx"

	"github.com/svckit/svc/devissuer"
	"github.com/svckit/svc/fxsvc"
	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/bearer"
	"github.com/svckit/svc/modules/authn/dpop"
	"github.com/svckit/svc/modules/oauthclient"
	"github.com/svckit/svc/secret"
	"github.com/svckit/svc/svctest"
)

// The ledger of issue 33, from svc's packages alone: two issuers, a DPoP
// route with a bound token and fresh proofs, a step-up route (success and
// refusal), opaque tokens through introspection and revocation, and an
// outbound call authenticated with private_key_jwt that exchanges the
// caller's token (RFC 8693) for one naming the ledger as actor.
func TestLedgerScenario(t *testing.T) {
	ctx := context.Background()
	bank := start(t, devissuer.Options{Audience: "ledger"})
	partner, err := bank.Another("/partner", devissuer.Options{Audience: "ledger"})
	if err != nil {
		t.Fatal(err)
	}
	ledgerKey, ledgerKeyPEM := ecKey(t)
	if err := bank.Register(devissuer.Client{ID: "ledger-svc", Key: &ledgerKey.PublicKey}); err != nil {
		t.Fatal(err)
	}
	// The ledger's own client: private_key_jwt, for introspection and the
	// outbound exchange.
	ledgerClient := openClient(t, bank, oauthclient.ClientID("ledger-svc"), oauthclient.PrivateKey(ledgerKeyPEM))
	payments := paymentsAPI(t, bank)
	self, err := oauthclient.ClientCredentials("self", oauthclient.WithClient(ledgerClient), oauthclient.Audience("ledger"))
	if err != nil {
		t.Fatal(err)
	}
	toPayments, err := oauthclient.TokenExchange("payments", oauthclient.WithClient(ledgerClient), oauthclient.Audience("payments"), oauthclient.Actor(self))
	if err != nil {
		t.Fatal(err)
	}
	proofs, err := dpop.New()
	if err != nil {
		t.Fatal(err)
	}
	verifier := bearer.Issuers(
		bearer.New(bank.URL, "ledger", bearer.Introspect("", ledgerClient), bearer.IntrospectionTTL(time.Millisecond)),
		bearer.New(partner.URL, "ledger"),
	)
	app := svctest.Start(t, fxsvc.Errors(), fxsvc.Authn(verifier, authn.DPoP(proofs, false)), fx.Provide(func() *chi.Mux {
		r := chi.NewRouter()
		r.With(authn.Require("read")).Get("/balance", func(w http.ResponseWriter, r *http.Request) {
			p, _ := authn.PrincipalFrom(r.Context())
			_, _ = io.WriteString(w, p.Subject+"@"+p.Issuer)
		})
		r.With(authn.RequireDPoP).Post("/transfers", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "transferred") })
		r.With(authn.RequireACR("mfa")).Post("/limits", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "raised") })
		r.Post("/payouts", func(w http.ResponseWriter, r *http.Request) {
			caller, _ := authn.TokenFrom(r.Context())
			resp, err := toPayments.ClientFor(caller).Post(payments+"/pay", "text/plain", nil)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadGateway)
				return
			}
			defer resp.Body.Close()
			_, _ = io.Copy(w, resp.Body)
		})
		return r
	}), fxsvc.Serve())

	// Two issuers: each one's token passes; the partner's names the partner.
	for _, iss := range []*devissuer.Issuer{bank, partner} {
		tok, _ := iss.Mint(devissuer.Token{Subject: "alice", Scopes: []string{"read"}})
		if r := app.Request("GET", "/balance").Token(tok).Send(t); r.Status != 200 || r.Body != "alice@"+iss.URL {
			t.Fatalf("%s's token: %d %s", iss.URL, r.Status, r.Body)
		}
	}

	// DPoP: svc's client gets a bound token and sends a fresh proof per
	// request; the same token as a bearer token is refused.
	teller := openClient(t, bank, oauthclient.ClientID(bank.ClientID), oauthclient.ClientSecret(secret.String(bank.ClientSecret)), oauthclient.DPoP(nil))
	transfers, err := oauthclient.ClientCredentials("ledger", oauthclient.WithClient(teller), oauthclient.Audience("ledger"))
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		resp, err := transfers.Client().Post(app.URL+"/transfers", "application/json", strings.NewReader(`{"cents":500}`))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || string(body) != "transferred" {
			t.Fatalf("a transfer with a DPoP token: %d %s", resp.StatusCode, body)
		}
	}
	bound, _ := transfers.Token(ctx)
	if r := app.Request("POST", "/transfers").Token(bound.Value).Send(t); r.Status != 401 || !strings.Contains(r.Header.Get("WWW-Authenticate"), "DPoP") {
		t.Fatalf("the bound token as Bearer: %d %v", r.Status, r.Header)
	}

	// Step-up: acr mfa passes; a password-only token is told what to get.
	_, body := getJSON(t, bank.URL+"/mint?sub=alice&acr=mfa&amr=pwd+otp&auth_time=now")
	if r := app.Request("POST", "/limits").Token(body["access_token"].(string)).Send(t); r.Status != 200 || r.Body != "raised" {
		t.Fatalf("step-up success: %d %s", r.Status, r.Body)
	}
	_, body = getJSON(t, bank.URL+"/mint?sub=alice&acr=pwd")
	if r := app.Request("POST", "/limits").Token(body["access_token"].(string)).Send(t); r.Status != 401 || !strings.Contains(r.Header.Get("WWW-Authenticate"), `error="insufficient_user_authentication"`) {
		t.Fatalf("step-up refusal: %d %v", r.Status, r.Header)
	}

	// Opaque: passes by introspection until revoked.
	_, body = getJSON(t, bank.URL+"/mint?sub=bob&scope=read&format=opaque")
	opaque := body["access_token"].(string)
	if r := app.Request("GET", "/balance").Token(opaque).Send(t); r.Status != 200 || r.Body != "bob@"+bank.URL {
		t.Fatalf("an opaque token: %d %s", r.Status, r.Body)
	}
	if status, _, _ := send(t, bank.URL+"/revoke", url.Values{"token": {opaque}}, basic(bank)); status != 200 {
		t.Fatalf("revoke: %d", status)
	}
	time.Sleep(5 * time.Millisecond) // past IntrospectionTTL: the next request asks again
	if r := app.Request("GET", "/balance").Token(opaque).Send(t); r.Status != 401 {
		t.Fatalf("a revoked opaque token: %d %s", r.Status, r.Body)
	}

	// The outbound call: the ledger exchanges alice's token, authenticated
	// by private_key_jwt, with its own token as actor_token; payments sees
	// alice, with the ledger as actor.
	tok, _ := bank.Mint(devissuer.Token{Subject: "alice", Scopes: []string{"read"}})
	if r := app.Request("POST", "/payouts").Token(tok).Send(t); r.Status != 200 || r.Body != "alice via ledger-svc" {
		t.Fatalf("the outbound call: %d %s", r.Status, r.Body)
	}
}

// paymentsAPI is the downstream API: it verifies tokens for audience
// payments and answers who is paying, and through whom.
func paymentsAPI(t *testing.T, bank *devissuer.Issuer) string {
	t.Helper()
	v := bearer.New(bank.URL, "payments")
	open(t, v)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, err := v.Verify(r.Context(), strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
		if err != nil {
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		}
		var act struct {
			Sub string `json:"sub"`
		}
		_ = json.Unmarshal(p.Claims.Raw["act"], &act)
		_, _ = io.WriteString(w, p.Subject+" via "+act.Sub)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}
