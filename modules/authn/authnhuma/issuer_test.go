package authnhuma_test

import (
	"context"
	"strings"
	"testing"

	"github.com/danielgtaylor/huma/v2"

	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/authnhuma"
	"github.com/svckit/svc/modules/authn/bearer"
	svcerrors "github.com/svckit/svc/modules/errors"
)

// twoIssuers verifies a caller of each of two issuers.
type twoIssuers struct{}

func (twoIssuers) Verify(_ context.Context, token string) (bearer.Principal, error) {
	iss := map[string]string{"ours": "https://idp.test", "partner": "https://partner.test", "partner-reader": "https://partner.test"}[token]
	if iss == "" {
		return bearer.Principal{}, &bearer.TokenError{Reason: bearer.ReasonSignature}
	}
	scopes := bearer.NewScopes("admin")
	if token == "partner-reader" {
		scopes = bearer.NewScopes("read")
	}
	return bearer.Principal{Subject: token, Issuer: iss, Scopes: scopes, Authenticated: true}, nil
}

func issuerOperations(api huma.API) {
	huma.Get(api, "/partner", fromContext, authnhuma.Use(authn.RequireIssuer("https://partner.test")), authnhuma.Require("admin"))
	grp := huma.NewGroup(api, "/group")
	authnhuma.Group(grp, authn.RequireIssuer("https://partner.test"))
	huma.Get(grp, "/open", fromContext)
}

// authn.RequireIssuer through authnhuma.Use and Group: another issuer's
// caller is refused 403 issuer-refused before its scopes, with no
// challenge, on every router and format.
func TestRequireIssuerOnHuma(t *testing.T) {
	rows := []struct {
		name, path, token string
		status            int
		anchor, challenge string
	}{
		{"the issuer, the scope", "/api/partner", "partner", 200, "", ""},
		{"another issuer", "/api/partner", "ours", 403, "issuer-refused", ""},
		{"the issuer, scope short", "/api/partner", "partner-reader", 403, "insufficient-scope", `Bearer error="insufficient_scope", scope="admin"`},
		{"group: the issuer", "/api/group/open", "partner-reader", 200, "", ""},
		{"group: another issuer", "/api/group/open", "ours", 403, "issuer-refused", ""},
	}
	each(t, appOptions{verify: twoIssuers{}, hook: issuerOperations}, func(t *testing.T, a *app, fname string, res *svcerrors.Responses) {
		srv := a.serve(t, res)
		for _, c := range rows {
			got := do(t, srv, "GET", c.path, bearerHeader(c.token), "")
			if got.status != c.status || got.header.Get("WWW-Authenticate") != c.challenge {
				t.Errorf("%s: %d %q, want %d %q (%s)", c.name, got.status, got.header.Get("WWW-Authenticate"), c.status, c.challenge, got.body)
			}
			if c.anchor != "" && !strings.Contains(got.body, strings.ToUpper(c.anchor)) && !strings.Contains(got.body, "#"+c.anchor) {
				t.Errorf("%s: body %s lacks %s", c.name, got.body, c.anchor)
			}
		}
	})
}
