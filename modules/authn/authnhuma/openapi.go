package authnhuma

import (
	"encoding/json"
	"net/http"
	"path"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/danielgtaylor/huma/v2"

	svcerrors "github.com/svckit/svc/modules/errors"
)

// The names of the security scheme in components.securitySchemes (the
// package doc names them).
const (
	// schemeBearer is the HTTP bearer scheme published for a verifier that
	// was not built by discovery.
	schemeBearer = "bearerAuth"
	// schemeOpenIDConnect is the scheme published for an bearer.Discover
	// verifier, pointing at its discovery document.
	schemeOpenIDConnect = "openIdConnect"
	// schemeDPoP is the HTTP DPoP scheme (RFC 9449 §7.1) published beside
	// the bearer one when the gate takes DPoP (authn.DPoP).
	schemeDPoP = "DPoP"
)

// documenter keeps the API document in line with the gate and the error
// format as operations are added (huma.OpenAPI.OnAddOperation).
type documenter struct {
	s      *settings
	oapi   *huma.OpenAPI
	scheme string // the bearer scheme, "" when the document names none or DPoP is required everywhere
	// dpop is schemeDPoP when the gate takes DPoP, else "";
	// dpopEverywhere when it requires it on every route.
	dpop           string
	dpopEverywhere bool
	model          string // the $ref of the error model

	mu         sync.Mutex
	ours       map[*huma.Response]bool // responses this package wrote
	candidates map[string]bool         // Huma's error model schemas we republished away
	kept       map[string]bool         // candidates something the app declared refers to
	scanned    map[string]bool         // component schemas already searched for them
}

// document sets up the security scheme and the error model, and hooks the
// per-operation rules.
func (s *settings) document(oapi *huma.OpenAPI) {
	if oapi.Components == nil {
		oapi.Components = &huma.Components{}
	}
	d := &documenter{s: s, oapi: oapi, ours: map[*huma.Response]bool{}, candidates: map[string]bool{}, kept: map[string]bool{}, scanned: map[string]bool{}}
	d.model = d.errorModel()
	if s.gate != nil && s.gate.Documented() {
		if oapi.Components.SecuritySchemes == nil {
			oapi.Components.SecuritySchemes = map[string]*huma.SecurityScheme{}
		}
		accepted, required := s.gate.DPoP()
		if accepted {
			d.dpop, d.dpopEverywhere = schemeDPoP, required
			oapi.Components.SecuritySchemes[schemeDPoP] = &huma.SecurityScheme{Type: "http", Scheme: "DPoP",
				Description: "An access token bound to the client's key (RFC 9449), in the Authorization header with the DPoP scheme, " +
					"and a proof signed by that key in the DPoP header."}
		}
		if !required {
			d.scheme = schemeBearer
			scheme := &huma.SecurityScheme{Type: "http", Scheme: "bearer", BearerFormat: "JWT",
				Description: "A bearer access token (RFC 6750) in the Authorization header."}
			if u := s.gate.DiscoveryURL(); u != "" {
				d.scheme = schemeOpenIDConnect
				scheme = &huma.SecurityScheme{Type: "openIdConnect", OpenIDConnectURL: u,
					Description: "A bearer access token (RFC 6750) from this OpenID Connect provider, in the Authorization header."}
			}
			oapi.Components.SecuritySchemes[d.scheme] = scheme
		}
	}
	oapi.OnAddOperation = append(oapi.OnAddOperation, d.onAdd, s.mendSchemaExamples)
}

// format is the format the document describes: the one passed with
// [Errors], else the RFC 9457 default (how the gate renders its refusals
// when no format is registered).
func (s *settings) format() *svcerrors.Responses {
	if s.res != nil {
		return s.res
	}
	return svcerrors.New()
}

// errorModel registers ProblemDetail or TMFError and returns its $ref.
func (d *documenter) errorModel() string {
	reg := d.oapi.Components.Schemas
	if reg == nil {
		return ""
	}
	t := reflect.TypeFor[svcerrors.ProblemDetail]()
	if d.s.format().MediaType() != svcerrors.ProblemMediaType {
		t = reflect.TypeFor[svcerrors.TMFError]()
	}
	ref := reg.Schema(t, true, "").Ref
	if s := reg.SchemaFromRef(ref); s != nil && t == reflect.TypeFor[svcerrors.ProblemDetail]() {
		// Extension members (retry_after, reason, …) sit at the top level.
		s.AdditionalProperties = true
	}
	return ref
}

func (d *documenter) onAdd(_ *huma.OpenAPI, op *huma.Operation) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.model == "" {
		return
	}
	d.republish(op)
	d.secure(op)
	d.declareRejections(op)
	d.describeMarkers(op)
	d.dropOrphans(op)
}

// errorResponse is a response in the registered error format; header
// names the one header it describes, and challenge is the description of
// a WWW-Authenticate header (challengeDoc's).
func (d *documenter) errorResponse(description, header, challenge string) *huma.Response {
	resp := &huma.Response{
		Description: description,
		Content:     map[string]*huma.MediaType{d.s.format().MediaType(): {Schema: &huma.Schema{Ref: d.model}}},
	}
	d.ours[resp] = true
	switch header {
	case "WWW-Authenticate":
		desc := challenge
		if d.dpop != "" {
			desc += " With DPoP, the DPoP challenge (RFC 9449 §7.1) too, with algs and an error: invalid_dpop_proof, " +
				"use_dpop_nonce (the nonce to use in DPoP-Nonce) or invalid_token."
		}
		resp.Headers = map[string]*huma.Param{header: {Description: desc, Schema: &huma.Schema{Type: huma.TypeString}}}
	case "Retry-After":
		resp.Headers = map[string]*huma.Param{header: {Description: "Seconds to wait before retrying.", Schema: &huma.Schema{Type: huma.TypeInteger}}}
	}
	return resp
}

// republish gives Huma's own error responses (those of op.Errors and the
// "default" one it adds) the registered media type and model, when a
// format was named with [Errors]. Responses the app declared itself are
// left alone.
func (d *documenter) republish(op *huma.Operation) {
	if d.s.res == nil {
		return
	}
	humaModel := reflect.TypeFor[huma.ErrorModel]()
	if t := reflect.TypeOf(huma.NewError(0, "")); t == nil || deref(t) != humaModel {
		// The app replaced huma.NewError: its error model is its own.
		return
	}
	reg := d.oapi.Components.Schemas
	for code, resp := range op.Responses {
		status, _ := strconv.Atoi(code)
		if code != "default" && !slices.Contains(op.Errors, status) {
			continue
		}
		if resp == nil || len(resp.Content) != 1 {
			continue
		}
		for _, mt := range resp.Content {
			if mt == nil || mt.Schema == nil || mt.Schema.Ref == "" {
				continue
			}
			if t := reg.TypeFromRef(mt.Schema.Ref); t == nil || deref(t) != humaModel {
				continue
			}
			d.candidates[path.Base(mt.Schema.Ref)] = true
			header := ""
			if status == http.StatusUnauthorized || status == http.StatusForbidden {
				header = "WWW-Authenticate"
			}
			op.Responses[code] = d.errorResponse(resp.Description, header, d.challengeDoc(op))
		}
	}
}

// secure writes the gate's rules on an operation it covers: the scheme
// with the operation's scopes (optional, beside an empty alternative, on an
// Anonymous one), and the 401, 403 and 429 it can answer. An excluded path
// names no scheme.
func (d *documenter) secure(op *huma.Operation) {
	if d.scheme == "" && d.dpop == "" || d.s.gate == nil {
		return
	}
	g := d.s.gate
	if g.Excluded(d.s.prefix + op.Path) {
		return
	}
	gd := guardOf(op)
	scopes := slices.Clone(gd.scopes)
	if scopes == nil {
		scopes = []string{}
	}
	anonymous := gd.anonymous && !gd.requires
	op.Security = nil
	for _, scheme := range d.schemes(gd) {
		if anonymous {
			op.Security = append(op.Security, map[string][]string{scheme: {}})
		} else {
			op.Security = append(op.Security, map[string][]string{scheme: scopes})
		}
	}
	if anonymous {
		op.Security = append(op.Security, map[string][]string{})
	}
	if op.Responses == nil {
		op.Responses = map[string]*huma.Response{}
	}
	challenge := d.challengeDoc(op)
	add := func(code, description, header string) {
		if _, declared := op.Responses[code]; !declared {
			op.Responses[code] = d.errorResponse(description, header, challenge)
		}
	}
	unauthorized := "Authentication required, or the bearer token did not verify (see WWW-Authenticate)."
	if step := stepUpDoc(gd); step != "" {
		unauthorized = "Authentication required, the bearer token did not verify, or the user's authentication is too weak or too old for this operation " +
			"(RFC 9470 step-up: WWW-Authenticate's error is insufficient_user_authentication, with " + step + ")."
	}
	if checked, _ := g.ClaimsChallenges(); checked {
		unauthorized = strings.TrimSuffix(unauthorized, ".") + ", or the token lacks claims the service asks for " +
			"(a claims challenge: WWW-Authenticate's error is insufficient_claims, with the claims to ask the issuer for)."
	}
	add("401", unauthorized, "WWW-Authenticate")
	if forbidden, header := forbiddenDoc(gd); forbidden != "" {
		add("403", forbidden, header)
	}
	documentRoles(op, gd)
	if g.BansCallers() {
		add("429", "The client is banned for a while; retry after Retry-After.", "Retry-After")
	}
}

// schemes are the security schemes an operation takes, each an
// alternative: bearer, and DPoP when the gate takes it; DPoP alone where
// the gate requires it.
func (d *documenter) schemes(gd opGuard) []string {
	switch {
	case d.dpop != "" && (d.dpopEverywhere || gd.dpop):
		return []string{d.dpop}
	case d.dpop != "":
		return []string{d.scheme, d.dpop}
	}
	return []string{d.scheme}
}

// declareRejections lists the rejections an operation returns ([Rejects]).
func (d *documenter) declareRejections(op *huma.Operation) {
	gd := guardOf(op)
	if len(gd.rejects) == 0 {
		return
	}
	if op.Responses == nil {
		op.Responses = map[string]*huma.Response{}
	}
	for _, rej := range gd.rejects {
		desc := rej.Describe()
		code := strconv.Itoa(desc.Status)
		resp, declared := op.Responses[code]
		switch {
		case !declared:
			header := ""
			if desc.Status == http.StatusTooManyRequests || desc.Status == http.StatusServiceUnavailable || desc.Status == http.StatusConflict {
				header = "Retry-After"
			}
			op.Responses[code] = d.errorResponse(desc.Title+".", header, "")
		case d.ours[resp] && !strings.Contains(resp.Description, desc.Title):
			resp.Description = strings.TrimSuffix(resp.Description, ".") + ", or " + desc.Title + "."
		}
	}
}

// dropOrphans removes Huma's error model (and the schemas only it refers
// to) from the components once nothing refers to it. Huma registers it
// again with every operation, so the check runs on each; it reads only
// what is new: the operation and the schemas added since the last one.
func (d *documenter) dropOrphans(op *huma.Operation) {
	if len(d.candidates) == 0 {
		return
	}
	all := d.oapi.Components.Schemas.Map()
	// The candidates' own references (ErrorModel → ErrorDetail) are
	// candidates too.
	for changed := true; changed; {
		changed = false
		for name := range d.candidates {
			for _, ref := range refsIn(marshal(all[name])) {
				if n := path.Base(ref); !d.candidates[n] {
					d.candidates[n] = true
					changed = true
				}
			}
		}
	}
	d.keepReferenced(marshal(op))
	for name, s := range all {
		if d.candidates[name] || d.scanned[name] {
			continue
		}
		d.scanned[name] = true
		d.keepReferenced(marshal(s))
	}
	for name := range d.candidates {
		if d.kept[name] {
			// What a kept schema refers to stays too.
			for _, ref := range refsIn(marshal(all[name])) {
				d.kept[path.Base(ref)] = true
			}
		}
	}
	for name := range d.candidates {
		if !d.kept[name] {
			delete(all, name)
		}
	}
}

func (d *documenter) keepReferenced(b []byte) {
	for _, ref := range refsIn(b) {
		if n := path.Base(ref); d.candidates[n] {
			d.kept[n] = true
		}
	}
}

func marshal(v any) []byte {
	if v == nil || (reflect.ValueOf(v).Kind() == reflect.Pointer && reflect.ValueOf(v).IsNil()) {
		return nil
	}
	b, _ := json.Marshal(v)
	return b
}

// refsIn returns the values of the "$ref" members in a JSON document.
func refsIn(b []byte) []string {
	const key = `"$ref":"`
	var out []string
	s := string(b)
	for {
		i := strings.Index(s, key)
		if i < 0 {
			return out
		}
		s = s[i+len(key):]
		j := strings.IndexByte(s, '"')
		if j < 0 {
			return out
		}
		out = append(out, s[:j])
		s = s[j:]
	}
}

func deref(t reflect.Type) reflect.Type {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// challengeDoc describes the WWW-Authenticate header of op's refusals:
// the errors its Bearer challenge can carry on this operation, and no
// other (a step-up only where the operation has one, a claims challenge
// only when the gate runs a check hook).
func (d *documenter) challengeDoc(op *huma.Operation) string {
	gd := guardOf(op)
	errs := []string{"invalid_token"}
	if len(gd.scopes) > 0 {
		errs = append(errs, "insufficient_scope (with scope)")
	}
	if slices.ContainsFunc(gd.stepUps, func(m func(http.Handler) http.Handler) bool { return !isRoleMarker(m) }) {
		errs = append(errs, "insufficient_user_authentication (RFC 9470 step-up, with acr_values and max_age)")
	}
	if d.s.gate != nil {
		if checked, named := d.s.gate.ClaimsChallenges(); checked {
			claims := "insufficient_claims (a claims challenge, with claims: base64 of the JSON claims request"
			if named {
				claims += ", after realm and authorization_uri, where to obtain them"
			}
			errs = append(errs, claims+")")
		}
	}
	last := len(errs) - 1
	if last == 0 {
		return "The RFC 6750 Bearer challenge. Its error says why: invalid_token."
	}
	return "The RFC 6750 Bearer challenge. Its error says why: " + strings.Join(errs[:last], ", ") + " or " + errs[last] + "."
}
