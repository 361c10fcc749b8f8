package authnhuma_test

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/danielgtaylor/huma/v2"
	"github.com/getkin/kin-openapi/openapi3"

	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/bans"
	"github.com/svckit/svc/modules/authn/bearer"
	"github.com/svckit/svc/modules/authn/dpop"
	svcerrors "github.com/svckit/svc/modules/errors"
)

// The API document follows the gate and the error format (spec: "API
// schema" and "Framework errors under the format" point 4). Every document
// is validated by kin-openapi, as OpenAPI 3.1 (what Huma writes) and as the
// 3.0.3 Huma downgrades it to.

type document struct {
	raw map[string]any
}

// fetchDocument reads the document the app serves at /api/openapi.json.
func fetchDocument(t *testing.T, a *app, res *svcerrors.Responses) document {
	t.Helper()
	srv := a.serve(t, res)
	got := do(t, srv, "GET", "/api/openapi.json", bearerHeader("alice-token"), "")
	if got.status != 200 || got.header.Get("Content-Type") != "application/openapi+json" {
		t.Fatalf("/api/openapi.json: %d %s", got.status, got.body)
	}
	validate(t, []byte(got.body))
	down, err := a.api.OpenAPI().Downgrade()
	if err != nil {
		t.Fatal(err)
	}
	validate(t, down)
	return document{raw: got.json}
}

func validate(t *testing.T, b []byte) {
	t.Helper()
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(b)
	if err != nil {
		t.Fatalf("kin-openapi cannot load the document: %v", err)
	}
	if err := doc.Validate(loader.Context); err != nil {
		t.Fatalf("kin-openapi: the %s document is invalid: %v", doc.OpenAPI, err)
	}
}

func (d document) get(path ...string) any {
	var v any = d.raw
	for _, p := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[p]
	}
	return v
}

func (d document) op(method, path string) map[string]any {
	m, _ := d.get("paths", path, strings.ToLower(method)).(map[string]any)
	return m
}

func (d document) security(method, path string) string {
	b, _ := json.Marshal(d.op(method, path)["security"])
	return string(b)
}

// response returns an operation's response for a status: its media types
// and their schema refs.
func (d document) response(method, path, code string) (media []string, refs []string, desc string) {
	resps, _ := d.op(method, path)["responses"].(map[string]any)
	r, _ := resps[code].(map[string]any)
	if r == nil {
		return nil, nil, ""
	}
	content, _ := r["content"].(map[string]any)
	for mt, c := range content {
		media = append(media, mt)
		if s, ok := c.(map[string]any)["schema"].(map[string]any); ok {
			ref, _ := s["$ref"].(string)
			refs = append(refs, ref)
		}
	}
	desc, _ = r["description"].(string)
	return media, refs, desc
}

func (d document) schemas() []string {
	m, _ := d.get("components", "schemas").(map[string]any)
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func modelOf(fname string) (media, ref, other string) {
	if fname == "tmf630" {
		return "application/json", "#/components/schemas/TMFError", "ProblemDetail"
	}
	return svcerrors.ProblemMediaType, "#/components/schemas/ProblemDetail", "TMFError"
}

func TestOpenAPIDocumentFollowsTheGate(t *testing.T) {
	o := appOptions{gateOpt: []authn.Option{authn.Exclude("/api/status"), authn.Bans(bans.New())}}
	each(t, o, func(t *testing.T, a *app, fname string, res *svcerrors.Responses) {
		d := fetchDocument(t, a, res)
		if s, _ := d.get("components", "securitySchemes", "bearerAuth").(map[string]any); s["type"] != "http" || s["scheme"] != "bearer" {
			t.Fatalf("security scheme %v", d.get("components", "securitySchemes"))
		}
		media, ref, other := modelOf(fname)
		cases := []struct {
			method, path, security string
			forbidden, covered     bool
		}{
			{"GET", "/hello", `[{"bearerAuth":[]},{}]`, false, true},
			{"GET", "/public/info", `[{"bearerAuth":[]},{}]`, false, true},
			{"GET", "/me", `[{"bearerAuth":[]}]`, false, true},
			{"POST", "/items", `[{"bearerAuth":["items:write"]}]`, true, true},
			{"GET", "/admin-area/stats", `[{"bearerAuth":["admin","stats"]}]`, true, true},
			{"GET", "/status", `null`, false, false},
		}
		for _, c := range cases {
			if got := d.security(c.method, c.path); got != c.security {
				t.Errorf("%s %s security %s, want %s", c.method, c.path, got, c.security)
			}
			for code, want := range map[string]bool{"401": c.covered, "403": c.forbidden, "429": c.covered} {
				m, refs, _ := d.response(c.method, c.path, code)
				if (m != nil) != want {
					t.Errorf("%s %s lists %s: %v, want %v", c.method, c.path, code, m != nil, want)
					continue
				}
				if want && (len(m) != 1 || m[0] != media || refs[0] != ref) {
					t.Errorf("%s %s %s: %v %v, want %s %s", c.method, c.path, code, m, refs, media, ref)
				}
			}
			// Huma's own error response, republished.
			if m, refs, _ := d.response(c.method, c.path, "default"); len(m) != 1 || m[0] != media || refs[0] != ref {
				t.Errorf("%s %s default: %v %v", c.method, c.path, m, refs)
			}
		}
		// A rejection the operation returns is declared beside the ban.
		if _, _, desc := d.response("GET", "/limited", "429"); !strings.Contains(desc, "banned") || !strings.Contains(desc, "Rate limit exceeded") {
			t.Errorf("/limited 429: %q", desc)
		}
		schemas := d.schemas()
		if slices.Contains(schemas, "ErrorModel") || slices.Contains(schemas, "ErrorDetail") || slices.Contains(schemas, other) ||
			!slices.Contains(schemas, strings.TrimPrefix(ref, "#/components/schemas/")) {
			t.Errorf("schemas %v: Huma's error model must be dropped, %s kept", schemas, ref)
		}
		if fname == "rfc9457" {
			if d.get("components", "schemas", "ProblemDetail", "additionalProperties") != true {
				t.Error("ProblemDetail must allow extension members")
			}
			if !slices.Contains(schemas, "FieldError") {
				t.Error("ProblemDetail's errors entries need FieldError")
			}
		}
	})
}

func TestOpenAPIWithoutBansListsNo429(t *testing.T) {
	each(t, appOptions{}, func(t *testing.T, a *app, _ string, res *svcerrors.Responses) {
		d := fetchDocument(t, a, res)
		if m, _, _ := d.response("GET", "/me", "429"); m != nil {
			t.Fatal("429 listed without bans")
		}
		if m, _, _ := d.response("GET", "/limited", "429"); m == nil {
			t.Fatal("the operation's own rejection is not declared")
		}
	})
}

func TestOpenAPIDiscoverVerifierPublishesOpenIDConnect(t *testing.T) {
	v := bearer.New("https://idp.example.com/realms/x", "api")
	each(t, appOptions{verify: v}, func(t *testing.T, a *app, _ string, res *svcerrors.Responses) {
		// Discover's verifier is never opened here: no network. Its
		// document is what the schema names.
		d := document{raw: mustJSON(t, a.api.OpenAPI())}
		validate(t, mustBytes(t, a.api.OpenAPI()))
		s, _ := d.get("components", "securitySchemes", "openIdConnect").(map[string]any)
		if s["type"] != "openIdConnect" || s["openIdConnectUrl"] != "https://idp.example.com/realms/x/.well-known/openid-configuration" {
			t.Fatalf("scheme %v", d.get("components", "securitySchemes"))
		}
		if got := d.security("POST", "/items"); got != `[{"openIdConnect":["items:write"]}]` {
			t.Fatalf("security %s", got)
		}
		if got := d.security("GET", "/hello"); got != `[{"openIdConnect":[]},{}]` {
			t.Fatalf("anonymous security %s", got)
		}
	})
}

// authn.OpenAPI(false) leaves the document as it is without a gate; the
// error format is still followed.
func TestOpenAPIFalseLeavesTheDocumentAlone(t *testing.T) {
	for rname, build := range routers {
		for fname, res := range formats() {
			t.Run(rname+"/"+fname, func(t *testing.T) {
				off := build(t, appOptions{res: res, gateOpt: []authn.Option{authn.OpenAPI(false)}})
				none := build(t, appOptions{res: res, noGate: true})
				a, b := mustBytes(t, off.api.OpenAPI()), mustBytes(t, none.api.OpenAPI())
				if string(a) != string(b) {
					t.Fatalf("OpenAPI(false) changed the document:\n%s\nvs\n%s", a, b)
				}
				d := document{raw: mustJSON(t, off.api.OpenAPI())}
				if d.get("components", "securitySchemes") != nil || d.security("GET", "/me") != "null" {
					t.Fatal("security written")
				}
				if m, _, _ := d.response("GET", "/me", "401"); m != nil {
					t.Fatal("401 written")
				}
				if slices.Contains(d.schemas(), "ErrorModel") {
					t.Fatal("the error format is not followed")
				}
			})
		}
	}
}

type widgetInput struct {
	ID string `path:"id"`
}

// Responses the app declared itself are left alone, and a model they refer
// to stays.
func TestOpenAPIAppDeclaredResponsesAreLeftAlone(t *testing.T) {
	hook := func(api huma.API) {
		errRef := api.OpenAPI().Components.Schemas.Schema(reflect.TypeFor[huma.ErrorModel](), true, "")
		huma.Register(api, huma.Operation{
			OperationID: "get-widget", Method: http.MethodGet, Path: "/widgets/{id}",
			Responses: map[string]*huma.Response{
				"404": {Description: "No such widget", Content: map[string]*huma.MediaType{"application/problem+json": {Schema: errRef}}},
				"401": {Description: "Our own words on 401", Content: map[string]*huma.MediaType{"text/plain": {}}},
			},
		}, func(context.Context, *widgetInput) (*helloOutput, error) { return reply("w"), nil })
		// Registered after: Huma's model must not be dropped from under it.
		huma.Get(api, "/after", fromContext)
	}
	each(t, appOptions{hook: hook}, func(t *testing.T, a *app, _ string, res *svcerrors.Responses) {
		d := fetchDocument(t, a, res)
		if m, refs, desc := d.response("GET", "/widgets/{id}", "404"); desc != "No such widget" || m[0] != "application/problem+json" ||
			refs[0] != "#/components/schemas/ErrorModel" {
			t.Fatalf("app's 404: %v %v %q", m, refs, desc)
		}
		if m, _, desc := d.response("GET", "/widgets/{id}", "401"); desc != "Our own words on 401" || m[0] != "text/plain" {
			t.Fatalf("app's 401: %v %q", m, desc)
		}
		if s := d.schemas(); !slices.Contains(s, "ErrorModel") || !slices.Contains(s, "ErrorDetail") {
			t.Fatalf("a model the app refers to was dropped: %v", s)
		}
	})
}

// Without authnhuma.Errors the document keeps Huma's own error responses
// (an app without a registered format keeps Huma's errors); the gate's
// refusals are described as the RFC 9457 problem details it then writes.
func TestOpenAPIWithoutAFormatKeepsHumasErrors(t *testing.T) {
	for rname, build := range routers {
		t.Run(rname, func(t *testing.T) {
			a := build(t, appOptions{})
			d := document{raw: mustJSON(t, a.api.OpenAPI())}
			validate(t, mustBytes(t, a.api.OpenAPI()))
			if _, refs, _ := d.response("GET", "/me", "default"); refs[0] != "#/components/schemas/ErrorModel" {
				t.Fatalf("default %v", refs)
			}
			if m, refs, _ := d.response("GET", "/me", "401"); m[0] != svcerrors.ProblemMediaType || refs[0] != "#/components/schemas/ProblemDetail" {
				t.Fatalf("401 %v %v", m, refs)
			}
		})
	}
}

func TestOpenAPIGatedOnlyWhenToldOfTheGate(t *testing.T) {
	a := newChiApp(t, appOptions{noGate: true})
	if d := (document{raw: mustJSON(t, a.api.OpenAPI())}); d.security("GET", "/me") != "null" || d.get("components", "securitySchemes") != nil {
		t.Fatal("security written without authnhuma.Gate")
	}
}

func mustBytes(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustJSON(t *testing.T, v any) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(mustBytes(t, v), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// Issue 21: a gate that takes DPoP names the DPoP scheme (type http,
// scheme DPoP) beside bearer, each an alternative of every operation; a
// gate that requires it names DPoP alone.
func TestOpenAPIDocumentsDPoP(t *testing.T) {
	v, err := dpop.New()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name             string
		required         bool
		me, hello, items string
		bearerScheme     bool
	}{
		{"allowed", false, `[{"bearerAuth":[]},{"DPoP":[]}]`, `[{"bearerAuth":[]},{"DPoP":[]},{}]`,
			`[{"bearerAuth":["items:write"]},{"DPoP":["items:write"]}]`, true},
		{"required", true, `[{"DPoP":[]}]`, `[{"DPoP":[]},{}]`, `[{"DPoP":["items:write"]}]`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := appOptions{gateOpt: []authn.Option{authn.DPoP(v, c.required)}}
			each(t, o, func(t *testing.T, a *app, _ string, _ *svcerrors.Responses) {
				// Read from the API: serving it takes a DPoP proof.
				d := document{raw: mustJSON(t, a.api.OpenAPI())}
				validate(t, mustBytes(t, a.api.OpenAPI()))
				down, err := a.api.OpenAPI().Downgrade()
				if err != nil {
					t.Fatal(err)
				}
				validate(t, down)
				s, _ := d.get("components", "securitySchemes", "DPoP").(map[string]any)
				if s["type"] != "http" || s["scheme"] != "DPoP" {
					t.Fatalf("DPoP scheme %v", d.get("components", "securitySchemes"))
				}
				if _, ok := d.get("components", "securitySchemes", "bearerAuth").(map[string]any); ok != c.bearerScheme {
					t.Fatalf("bearerAuth published: %v, want %v", ok, c.bearerScheme)
				}
				for path, want := range map[string]string{"/me": c.me, "/hello": c.hello} {
					if got := d.security("GET", path); got != want {
						t.Errorf("GET %s security %s, want %s", path, got, want)
					}
				}
				if got := d.security("POST", "/items"); got != c.items {
					t.Errorf("POST /items security %s, want %s", got, c.items)
				}
				resps, _ := d.op("GET", "/me")["responses"].(map[string]any)
				h, _ := d.getIn(resps, "401", "headers", "WWW-Authenticate", "description").(string)
				if !strings.Contains(h, "invalid_dpop_proof") {
					t.Errorf("the 401's WWW-Authenticate does not describe the DPoP challenge: %q", h)
				}
			})
		})
	}
}

func (document) getIn(v any, path ...string) any {
	for _, p := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[p]
	}
	return v
}
