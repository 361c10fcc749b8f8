package authn_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/bearer"
	svcerrors "github.com/svckit/svc/modules/errors"
)

// actVerifier verifies any token, reading the token itself as the
// base64url JSON of its act claim ("-" for none).
type actVerifier struct{}

func (actVerifier) Verify(_ context.Context, token string) (bearer.Principal, error) {
	claims := &bearer.Claims{Subject: "alice", Issuer: "https://as.example", Raw: map[string]json.RawMessage{}}
	if token != "-" {
		act, err := base64.RawURLEncoding.DecodeString(token)
		if err != nil {
			return bearer.Principal{}, err
		}
		claims.Raw["act"] = json.RawMessage(act)
	}
	return bearer.Principal{Subject: "alice", Issuer: "https://as.example", Claims: claims, Authenticated: true}, nil
}

func actToken(act string) string {
	if act == "-" {
		return act
	}
	return base64.RawURLEncoding.EncodeToString([]byte(act))
}

func TestPrincipalActorsReadsTheChain(t *testing.T) {
	for _, tc := range []struct {
		act  string
		want string // subjects, current first; "error" for a refusal
	}{
		{"-", ""},
		{`{"sub":"orders"}`, "orders"},
		{`{"sub":"orders","iss":"https://as.example","act":{"sub":"gateway"}}`, "orders gateway"},
		{`{"sub":"a","act":{"sub":"b","act":{"sub":"c"}}}`, "a b c"},
		{`"orders"`, "error"},
		{`{"sub":""}`, "error"},
		{`{"sub":7}`, "error"},
		{`{"sub":"a","iss":["x"]}`, "error"},
		{`{"sub":"a","act":"b"}`, "error"},
		{`{"sub":"a","act":null}`, "error"},
		{strings.Repeat(`{"sub":"x","act":`, 17) + `{"sub":"y"}` + strings.Repeat("}", 17), "error"},
	} {
		p, _ := actVerifier{}.Verify(context.Background(), actToken(tc.act))
		chain, err := p.Actors()
		var got []string
		for _, a := range chain {
			got = append(got, a.Subject)
		}
		if tc.want == "error" {
			if err == nil || chain != nil {
				t.Errorf("act %s: chain %v, err %v: want a refusal", tc.act, chain, err)
			}
			continue
		}
		if err != nil || strings.Join(got, " ") != tc.want {
			t.Errorf("act %s: chain %v, err %v, want %q", tc.act, got, err, tc.want)
		}
	}
	if chain, err := (bearer.Principal{Authenticated: true}).Actors(); chain != nil || err != nil {
		t.Errorf("no claims: %v %v", chain, err)
	}
}

// Issue 22 item 1 (inbound): the gate's policy bounds the chain's depth
// and the actors at each level; a refused chain is 403 actor-refused with
// no challenge.
func TestActorsPolicy(t *testing.T) {
	srv := gateServer(t, svcerrors.New(), exampleRouter(), actVerifier{},
		authn.Actors(2, []string{"orders", "billing"}, []string{"gateway"}))
	for _, tc := range []struct {
		act    string
		status int
	}{
		{"-", 200},
		{`{"sub":"orders"}`, 200},
		{`{"sub":"billing","act":{"sub":"gateway"}}`, 200},
		{`{"sub":"mallory"}`, 403},                                          // not allowed at level 0
		{`{"sub":"orders","act":{"sub":"mallory"}}`, 403},                   // not allowed at level 1
		{`{"sub":"orders","act":{"sub":"gateway","act":{"sub":"x"}}}`, 403}, // deeper than 2
		{`{"sub":""}`, 403},                                                 // malformed
	} {
		got := do(t, srv, "GET", "/me", bearerHeader(actToken(tc.act)), "")
		if got.status != tc.status {
			t.Errorf("act %s: status %d, want %d (%s)", tc.act, got.status, tc.status, got.body)
			continue
		}
		if tc.status == 403 {
			if got.json["type"] != docs+"actor-refused" || got.json["title"] != "Actor refused" ||
				got.header.Get("WWW-Authenticate") != "" || got.header.Get("Content-Type") != "application/problem+json" {
				t.Errorf("act %s: %v %v", tc.act, got.header, got.body)
			}
			if strings.Contains(got.body, "mallory") {
				t.Errorf("the refusal names the actor: %s", got.body)
			}
		}
	}

	none := gateServer(t, svcerrors.New(), exampleRouter(), actVerifier{}, authn.Actors(0))
	if got := do(t, none, "GET", "/me", bearerHeader(actToken(`{"sub":"orders"}`)), ""); got.status != 403 {
		t.Errorf("Actors(0) let an actor through: %d", got.status)
	}
	if got := do(t, none, "GET", "/me", bearerHeader("-"), ""); got.status != 200 {
		t.Errorf("Actors(0) refused a token without actors: %d", got.status)
	}
}

func TestActorsPolicyRefusedWhenBuilt(t *testing.T) {
	for _, opt := range []authn.Option{authn.Actors(-1), authn.Actors(1, nil, []string{"x"})} {
		_, err := authn.New(actVerifier{}, opt)
		var ce *bearer.ConfigError
		if !errors.As(err, &ce) || ce.Setting != "authn.Actors" {
			t.Errorf("err = %v, want a ConfigError naming authn.Actors", err)
		}
	}
}

// An allowed sub names an actor of the token's own issuer (RFC 8693 §4.1:
// iss and sub together identify an actor): another issuer's "orders" is
// not the local one, at any level of the chain.
func TestActorsPolicyMatchesTheIssuerToo(t *testing.T) {
	const own, other = "https://as.example", "https://other.example" // actVerifier's issuer, and another
	srv := gateServer(t, svcerrors.New(), exampleRouter(), actVerifier{},
		authn.Actors(3, []string{"orders"}, []string{"gateway"}, []string{"edge"}))
	for _, tc := range []struct {
		name   string
		act    string
		status int
	}{
		{"act without iss", `{"sub":"orders"}`, 200},
		{"act of the token's issuer", `{"sub":"orders","iss":"` + own + `"}`, 200},
		{"act of another issuer", `{"sub":"orders","iss":"` + other + `"}`, 403},
		{"act of an issuer spelled with a trailing slash", `{"sub":"orders","iss":"` + own + `/"}`, 403},
		{"nested, every level without iss", `{"sub":"orders","act":{"sub":"gateway","act":{"sub":"edge"}}}`, 200},
		{"nested, every level of the token's issuer", `{"sub":"orders","iss":"` + own + `","act":{"sub":"gateway","iss":"` + own + `","act":{"sub":"edge","iss":"` + own + `"}}}`, 200},
		{"nested, level 1 of another issuer", `{"sub":"orders","act":{"sub":"gateway","iss":"` + other + `"}}`, 403},
		{"nested, the deepest level of another issuer", `{"sub":"orders","act":{"sub":"gateway","act":{"sub":"edge","iss":"` + other + `"}}}`, 403},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := do(t, srv, "GET", "/me", bearerHeader(actToken(tc.act)), "")
			if got.status != tc.status {
				t.Fatalf("status %d, want %d: %s", got.status, tc.status, got.body)
			}
			if tc.status == 403 && (got.json["type"] != docs+"actor-refused" || got.header.Get("WWW-Authenticate") != "") {
				t.Errorf("%v %s", got.header, got.body)
			}
		})
	}
	// A level with no list accepts any actor, of any issuer.
	open := gateServer(t, svcerrors.New(), exampleRouter(), actVerifier{}, authn.Actors(1))
	if got := do(t, open, "GET", "/me", bearerHeader(actToken(`{"sub":"orders","iss":"`+other+`"}`)), ""); got.status != 200 {
		t.Errorf("a level without a list refused another issuer's actor: %d", got.status)
	}
}
