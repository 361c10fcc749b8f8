package fxsvc

import (
	"context"
	"errors"
	"slices"
	"strings"

	"go.uber.org/zap"

	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/bearer"
)

// checkOnly is in the graph the check command builds, which never starts: components
// may then stand in for what only a running service needs, and say so in
// unresolved.
type checkOnly struct {
	on         bool
	unresolved *unresolvedSettings
}

// unresolvedSettings lists the deployment settings `check` did without:
// unset, so what they decide (the issuer trusted, the outbound client) is
// not resolved, while the routes and every setting that is set are.
type unresolvedSettings struct{ names []string }

// note records that setting (what it decides) was unset; a nil receiver
// (a graph not built by Check) records nothing.
func (u *unresolvedSettings) note(setting string) {
	if u != nil && !slices.Contains(u.names, setting) {
		u.names = append(u.names, setting)
	}
}

// errCheckOnly is what the stand-in verifier answers; it is never reached,
// as a graph built by Check never serves.
var errCheckOnly = errors.New("fxsvc: the verifier of `check` verifies nothing (SVC_AUTHN_ISSUER is unset)")

// checkVerifier stands in for the verifier of Authn(nil, …) under `check`
// when SVC_AUTHN_ISSUER is unset: listing routes needs no identity
// provider, so `check` runs without production settings.
type checkVerifier struct{}

func (checkVerifier) Verify(context.Context, string) (bearer.Principal, error) {
	return bearer.Principal{}, errCheckOnly
}

// Issuers names the placeholder issuer, so that a gate with authn.Resource
// builds as it would with the real verifier; the metadata document naming
// it is never served.
func (checkVerifier) Issuers() []string { return []string{checkIssuer} }

// checkIssuer is a syntactically valid issuer for checking the verifier
// options of AuthnVerifierOptions under `check`; nothing contacts it.
const checkIssuer = "https://issuer.check.invalid"

// envVerifier builds the verifier of Authn(nil, …) from the environment,
// or, in a graph built by Check with SVC_AUTHN_ISSUER unset, the stand-in
// (after checking the verifier options, which `check` should still catch).
// An issuer that is set is always checked.
func envVerifier(check checkOnly, vo *authnVerifierOpts, log *zap.Logger) (bearer.Verifier, error) {
	if check.on {
		if _, set, err := authnFromEnv(); err == nil && !set {
			check.unresolved.note("SVC_AUTHN_ISSUER (the issuer trusted)")
			if vo != nil {
				if err := bearer.SettingsError(bearer.New(checkIssuer, "check", vo.opts...)); err != nil {
					return nil, authnSettingError(err, authnEnv{})
				}
			}
			return checkVerifier{}, nil
		}
	}
	v, err := verifierFromEnv(vo, log)
	if err != nil {
		return nil, err
	}
	return v, nil
}

// trustedIssuers is what `check` writes on stderr after "trusts issuers:"
// (stdout is the route table other tools parse): the issuers the gate's
// verifier trusts, or why they are not known.
type trustedIssuers string

// trustedIssuersOf names the issuers of g's verifier: the stand-in's
// unset setting, the issuers the verifier lists (as the start line shows
// them), or "" for a verifier of the app's own that lists none.
func trustedIssuersOf(g *authn.Gate) trustedIssuers {
	v := g.Verifier()
	if _, ok := v.(checkVerifier); ok {
		return "(SVC_AUTHN_ISSUER unset)"
	}
	issuers, ok := issuersShown(g)
	if !ok {
		return ""
	}
	if len(issuers) == 0 {
		return "(none listed by the verifier)"
	}
	return trustedIssuers(strings.Join(issuers, ", "))
}
