package authnhuma_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humachi"
	"github.com/go-chi/chi/v5"

	"github.com/svckit/svc/internal/dpoptest"
	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/authnhuma"
	"github.com/svckit/svc/modules/authn/bearer"
	"github.com/svckit/svc/modules/authn/dpop"
	svcerrors "github.com/svckit/svc/modules/errors"
)

// boundVerifier is fakeVerifier with "bound-token", bound to key (its
// cnf.jkt), holding the scope items:write.
type boundVerifier struct{ key *dpoptest.Key }

func (b boundVerifier) Verify(ctx context.Context, token string) (bearer.Principal, error) {
	if token == "bound-token" {
		return bearer.Principal{Subject: "bob", Issuer: "https://idp.test", Scopes: bearer.NewScopes("items:write"), Authenticated: true,
			Claims: &bearer.Claims{Raw: map[string]json.RawMessage{"cnf": json.RawMessage(`{"jkt":"` + b.key.JKT + `"}`)}}}, nil
	}
	return fakeVerifier{}.Verify(ctx, token)
}

func (boundVerifier) Issuers() []string { return []string{"https://idp.test"} }

// dpopOperations adds an operation that requires DPoP.
func dpopOperations(api huma.API) {
	huma.Post(api, "/transfer", func(_ context.Context, in *itemInput) (*helloOutput, error) {
		return reply("sent " + in.Body.Name), nil
	}, authnhuma.Require("items:write"), authnhuma.Use(authn.RequireDPoP))
}

func newDPoPVerifier(t *testing.T) *dpop.Verifier {
	t.Helper()
	v, err := dpop.New()
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// Issue 21: authnhuma.Use(authn.RequireDPoP) makes DPoP required on one
// operation, before Huma reads the body, while the others take Bearer;
// the document names DPoP alone there.
func TestRequireDPoPOnHuma(t *testing.T) {
	key := dpoptest.New(t)
	o := appOptions{verify: boundVerifier{key}, hook: dpopOperations, gateOpt: []authn.Option{authn.DPoP(newDPoPVerifier(t), false)}}
	each(t, o, func(t *testing.T, a *app, _ string, res *svcerrors.Responses) {
		srv := a.serve(t, res)
		viaDPoP := func(path string) http.Header {
			return http.Header{"Authorization": {"DPoP bound-token"}, "Dpop": {key.Proof(t, "POST", srv.URL+path, "bound-token", "")}}
		}
		for _, c := range []struct {
			name, path string
			header     http.Header
			body       string
			status     int
			challenge  string
		}{
			{"DPoP where required", "/api/transfer", viaDPoP("/api/transfer"), `{"name":"pen"}`, 200, ""},
			{"Bearer where required", "/api/transfer", bearerHeader("writer-token"), `{"name":"pen"}`, 401, `DPoP algs="ES256", error="invalid_token"`},
			// Refused before Huma reads the body: 401, never 422.
			{"Bearer where required, invalid body", "/api/transfer", bearerHeader("writer-token"), `{"name":1}`, 401, `DPoP algs="ES256", error="invalid_token"`},
			{"Bearer where allowed", "/api/items", bearerHeader("writer-token"), `{"name":"pen"}`, 200, ""},
		} {
			got := do(t, srv, "POST", c.path, c.header, c.body)
			if got.status != c.status || got.header.Get("WWW-Authenticate") != c.challenge {
				t.Errorf("%s: %d %q, want %d %q (%s)", c.name, got.status, got.header.Values("WWW-Authenticate"), c.status, c.challenge, got.body)
			}
			if c.status == 401 && got.json["reason"] != "dpop-required" && !strings.Contains(got.body, "DPoP authorization scheme") {
				t.Errorf("%s: body %s does not say dpop-required", c.name, got.body)
			}
		}
		d := document{raw: mustJSON(t, a.api.OpenAPI())}
		if got := d.security("POST", "/transfer"); got != `[{"DPoP":["items:write"]}]` {
			t.Errorf("POST /transfer security %s", got)
		}
		if got := d.security("POST", "/items"); got != `[{"bearerAuth":["items:write"]},{"DPoP":["items:write"]}]` {
			t.Errorf("POST /items security %s", got)
		}
	})
}

// On a bare adapter the marker is enforced inside Huma with the same
// answer; with a gate that takes no DPoP no token can pass there.
func TestRequireDPoPOnABareAdapter(t *testing.T) {
	key := dpoptest.New(t)
	for _, c := range []struct {
		name      string
		opts      []authn.Option
		challenge string
	}{
		{"gate with DPoP", []authn.Option{authn.DPoP(newDPoPVerifier(t), false)}, `DPoP algs="ES256", error="invalid_token"`},
		{"gate without DPoP", nil, `Bearer error="invalid_token"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			g, err := authn.New(boundVerifier{key}, c.opts...)
			if err != nil {
				t.Fatal(err)
			}
			r := chi.NewRouter()
			dpopOperations(humachi.New(r, huma.DefaultConfig("Bare", "1.0.0")))
			h, err := g.Handler(r)
			if err != nil {
				t.Fatal(err)
			}
			srv := httptestServer(t, svcerrors.New().Middleware(h))
			got := do(t, srv, "POST", "/transfer", bearerHeader("writer-token"), `{"name":"pen"}`)
			if got.status != 401 || got.header.Get("WWW-Authenticate") != c.challenge || got.json["reason"] != "dpop-required" {
				t.Fatalf("%d %q %s", got.status, got.header.Values("WWW-Authenticate"), got.body)
			}
		})
	}
}
