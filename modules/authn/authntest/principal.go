package authntest

import (
	"net/http"

	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/bearer"
)

// Caller returns an authenticated principal for handler tests that need no
// token: issuer "https://issuer.test.example", the given subject and
// scopes.
func Caller(subject string, scopes ...string) bearer.Principal {
	return bearer.Principal{
		Subject:       subject,
		Issuer:        "https://issuer.test.example",
		Scopes:        bearer.NewScopes(scopes...),
		Authenticated: true,
	}
}

// WithPrincipal returns a copy of r whose context carries p, as the gate
// would store it: authn.PrincipalFrom, authn.ClaimsFrom and the Huma
// caller inputs read it. No token is attached (authn.TokenFrom reports
// none): a handler that needs the caller's token is tested behind the gate
// with a token of an [Issuer].
func WithPrincipal(r *http.Request, p bearer.Principal) *http.Request {
	return r.WithContext(authn.ContextWithPrincipal(r.Context(), p))
}
