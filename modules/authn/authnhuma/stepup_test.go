package authnhuma_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humachi"
	"github.com/go-chi/chi/v5"

	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/authnhuma"
	"github.com/svckit/svc/modules/authn/bearer"
	svcerrors "github.com/svckit/svc/modules/errors"
)

// stepUpVerifier hands out callers whose tokens carry acr and auth_time.
// Its ages are an hour apart from the limits, so the machine's clock
// cannot decide a case.
type stepUpVerifier struct{}

func (stepUpVerifier) Verify(_ context.Context, token string) (bearer.Principal, error) {
	now := time.Now()
	raw := func(acr string, age time.Duration, scopes ...string) bearer.Principal {
		claims := map[string]json.RawMessage{"auth_time": json.RawMessage(strconv.FormatInt(now.Add(-age).Unix(), 10))}
		if acr != "" {
			claims["acr"] = json.RawMessage(strconv.Quote(acr))
		}
		return bearer.Principal{Subject: "alice", Issuer: "https://idp.test", Scopes: bearer.NewScopes(scopes...),
			Claims: &bearer.Claims{Raw: claims}, Authenticated: true}
	}
	switch token {
	case "strong-admin":
		return raw("phr", time.Minute, "admin"), nil
	case "strong-reader":
		return raw("phr", time.Minute, "read"), nil
	case "weak-admin":
		return raw("pwd", time.Minute, "admin"), nil
	case "weak-reader":
		return raw("pwd", time.Minute, "read"), nil
	case "old-admin":
		return raw("phr", 2*time.Hour, "admin"), nil
	}
	return bearer.Principal{}, &bearer.TokenError{Reason: bearer.ReasonSignature}
}

const hubChallenge = `Bearer error="insufficient_user_authentication", error_description="A different authentication level is required", acr_values="phr", max_age="300"`

// stepUpOperations are the step-up operations on every router: on an
// operation through Use, and on a group through Group.
func stepUpOperations(api huma.API) {
	huma.Post(api, "/pay", func(_ context.Context, in *itemInput) (*helloOutput, error) {
		return reply("paid " + in.Body.Name), nil
	}, authnhuma.Use(authn.RequireACR("phr"), authn.MaxAge(5*time.Minute)), authnhuma.Require("admin"))
	vault := huma.NewGroup(api, "/vault")
	authnhuma.Group(vault, authn.RequireACR("phr"))
	huma.Get(vault, "/open", fromContext)
}

func TestStepUpOnHuma(t *testing.T) {
	rows := []struct {
		name, method, path, token, body string
		status                          int
		anchor, challenge               string
	}{
		{"strong, fresh, scope held", "POST", "/api/pay", "strong-admin", `{"name":"pen"}`, 200, "", ""},
		{"weak acr", "POST", "/api/pay", "weak-admin", `{"name":"pen"}`, 401, "insufficient-user-authentication", hubChallenge},
		{"old authentication", "POST", "/api/pay", "old-admin", `{"name":"pen"}`, 401, "insufficient-user-authentication", hubChallenge},
		{"weak acr and scope missing: 401 names both", "POST", "/api/pay", "weak-reader", `{"name":"pen"}`, 401, "insufficient-user-authentication", hubChallenge + `, scope="admin"`},
		{"strong, scope missing: 403", "POST", "/api/pay", "strong-reader", `{"name":"pen"}`, 403, "insufficient-scope", `Bearer error="insufficient_scope", scope="admin"`},
		// Refused before Huma reads the body: 401, never 422.
		{"weak acr, invalid body", "POST", "/api/pay", "weak-admin", `{"name":1}`, 401, "insufficient-user-authentication", hubChallenge},
		{"group: strong", "GET", "/api/vault/open", "strong-reader", "", 200, "", ""},
		{"group: weak", "GET", "/api/vault/open", "weak-reader", "", 401, "insufficient-user-authentication",
			`Bearer error="insufficient_user_authentication", error_description="A different authentication level is required", acr_values="phr"`},
	}
	each(t, appOptions{verify: stepUpVerifier{}, hook: stepUpOperations}, func(t *testing.T, a *app, fname string, res *svcerrors.Responses) {
		srv := a.serve(t, res)
		for _, c := range rows {
			got := do(t, srv, c.method, c.path, bearerHeader(c.token), c.body)
			if got.status != c.status || got.header.Get("WWW-Authenticate") != c.challenge {
				t.Errorf("%s: %d %q, want %d %q (%s)", c.name, got.status, got.header.Get("WWW-Authenticate"), c.status, c.challenge, got.body)
			}
			if c.anchor != "" && !strings.Contains(got.body, strings.ToUpper(c.anchor)) && !strings.Contains(got.body, "#"+c.anchor) {
				t.Errorf("%s: body %s lacks %s", c.name, got.body, c.anchor)
			}
		}
	})
}

// On a bare humachi adapter the gate cannot read the guard before routing:
// the step-up is enforced inside Huma, with the same answers.
func TestStepUpOnABareAdapter(t *testing.T) {
	g, err := authn.New(stepUpVerifier{})
	if err != nil {
		t.Fatal(err)
	}
	r := chi.NewRouter()
	api := humachi.New(r, huma.DefaultConfig("Bare", "1.0.0"))
	stepUpOperations(api)
	h, err := g.Handler(r)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptestServer(t, svcerrors.New().Middleware(h))
	for _, c := range []struct {
		path, token, body string
		status            int
		challenge         string
	}{
		{"/pay", "strong-admin", `{"name":"pen"}`, 200, ""},
		{"/pay", "weak-admin", `{"name":"pen"}`, 401, hubChallenge},
		{"/pay", "weak-reader", `{"name":"pen"}`, 401, hubChallenge + `, scope="admin"`},
		{"/pay", "strong-reader", `{"name":"pen"}`, 403, `Bearer error="insufficient_scope", scope="admin"`},
		{"/vault/open", "weak-reader", "", 401, `Bearer error="insufficient_user_authentication", error_description="A different authentication level is required", acr_values="phr"`},
		{"/vault/open", "strong-reader", "", 200, ""},
	} {
		method := "POST"
		if c.body == "" {
			method = "GET"
		}
		got := do(t, srv, method, c.path, bearerHeader(c.token), c.body)
		if got.status != c.status || got.header.Get("WWW-Authenticate") != c.challenge {
			t.Errorf("%s %s: %d %q, want %d %q (%s)", c.path, c.token, got.status, got.header.Get("WWW-Authenticate"), c.status, c.challenge, got.body)
		}
	}
}

// The document says, on the operation's 401, what its step-up asks; the
// WWW-Authenticate header names the claims challenge; `check` reads the
// step-up from the route markers.
func TestStepUpIsDocumentedAndChecked(t *testing.T) {
	a := newChiApp(t, appOptions{verify: stepUpVerifier{}, hook: stepUpOperations, res: svcerrors.New()})
	op := a.api.OpenAPI().Paths["/pay"].Post
	resp := op.Responses["401"]
	if resp == nil || !strings.Contains(resp.Description, "insufficient_user_authentication, with acr_values=phr, max_age=300") {
		t.Fatalf("401: %+v", resp)
	}
	if h := resp.Headers["WWW-Authenticate"]; h == nil || !strings.Contains(h.Description, "insufficient_user_authentication") ||
		!strings.Contains(h.Description, "insufficient_scope") || strings.Contains(h.Description, "insufficient_claims") {
		t.Fatalf("401 header: %+v (a gate without a check hook sends no claims challenge)", resp.Headers["WWW-Authenticate"])
	}
	if got := op.Security; len(got) != 1 || strings.Join(got[0]["bearerAuth"], " ") != "admin" {
		t.Fatalf("security %v", got)
	}
	if plain := a.api.OpenAPI().Paths["/me"].Get.Responses["401"]; strings.Contains(plain.Description, "step-up") {
		t.Fatalf("an operation without step-up: %s", plain.Description)
	}
	found := map[string]string{}
	_ = chi.Walk(a.router.(chi.Routes), func(method, pattern string, h http.Handler, mws ...func(http.Handler) http.Handler) error {
		mode, requires := a.gate.Guard(method, pattern, h, mws)
		found[method+" "+pattern] = mode + " " + strings.Join(requires, " ")
		return nil
	})
	if got := found["POST /api/pay"]; got != "authenticated admin acr=phr max_age=300s" {
		t.Fatalf("check: %q (%v)", got, found)
	}
	if got := found["GET /api/vault/open"]; got != "authenticated acr=phr" {
		t.Fatalf("check: %q", got)
	}
}

// Issue 20: an operation the gate's check hook covers documents the claims
// challenge on its own 401 (description and WWW-Authenticate header), with
// realm and authorization_uri when the gate names them; an excluded one,
// or any one behind a gate without a hook, does not.
func TestClaimsChallengeIsDocumentedPerOperation(t *testing.T) {
	hook := authn.Check(func(_ context.Context, p bearer.Principal, _ *http.Request) (bearer.Principal, error) { return p, nil })
	for _, c := range []struct {
		name  string
		opts  []authn.Option
		want  []string // in /pay's 401 header description
		claim bool
	}{
		{"no check hook", nil, []string{"insufficient_user_authentication", "insufficient_scope"}, false},
		{"a check hook", []authn.Option{hook}, []string{"insufficient_user_authentication", "insufficient_scope",
			"insufficient_claims (a claims challenge, with claims: base64 of the JSON claims request)"}, true},
		{"a check hook and an authority", []authn.Option{hook, authn.ClaimsChallengeAuthority("", "https://login.example.com/authorize")},
			[]string{"insufficient_claims (a claims challenge, with claims: base64 of the JSON claims request, after realm and authorization_uri, where to obtain them)"}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := newChiApp(t, appOptions{verify: stepUpVerifier{}, hook: stepUpOperations, res: svcerrors.New(), gateOpt: append(c.opts, authn.Exclude("/api/status"))})
			doc, err := json.Marshal(a.api.OpenAPI())
			if err != nil {
				t.Fatal(err)
			}
			var parsed struct {
				Paths map[string]map[string]struct {
					Responses map[string]struct {
						Description string `json:"description"`
						Headers     map[string]struct {
							Description string `json:"description"`
						} `json:"headers"`
					} `json:"responses"`
				} `json:"paths"`
			}
			if err := json.Unmarshal(doc, &parsed); err != nil {
				t.Fatal(err)
			}
			if r, ok := parsed.Paths["/status"]["get"].Responses["401"]; ok {
				t.Errorf("an excluded operation documents a 401: %+v", r)
			}
			for path, method := range map[string]string{"/pay": "post", "/me": "get"} {
				r401, ok := parsed.Paths[path][method].Responses["401"]
				if !ok {
					t.Fatalf("%s has no 401 in %s", path, doc)
				}
				header := r401.Headers["WWW-Authenticate"].Description
				if got := strings.Contains(header, "insufficient_claims") && strings.Contains(r401.Description, "insufficient_claims"); got != c.claim {
					t.Errorf("%s: claims challenge documented %v, want %v: %q / %q", path, got, c.claim, r401.Description, header)
				}
				if path == "/me" && strings.Contains(header, "insufficient_user_authentication") {
					t.Errorf("/me has no step-up, yet its header names one: %q", header)
				}
				if path != "/pay" {
					continue
				}
				for _, w := range c.want {
					if !strings.Contains(header, w) {
						t.Errorf("/pay's WWW-Authenticate %q lacks %q", header, w)
					}
				}
			}
		})
	}
}
