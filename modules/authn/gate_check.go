package authn

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/svckit/svc/modules/authn/bearer"
	svcerrors "github.com/svckit/svc/modules/errors"
)

// runCheck applies the check hook; ok is false when it answered r itself.
func (g *Gate) runCheck(w http.ResponseWriter, q *gateRequest, p bearer.Principal) (bearer.Principal, bool) {
	r := q.r
	got, err := g.cfg.check(r.Context(), p, r)
	var ref *Refusal
	if err != nil && errors.As(err, &ref) && ref.Kind == kindInsufficientClaims {
		// A claims challenge judges the caller: recorded and counted like
		// the gate's own refusals.
		q.refuse(w, ref, false)
		return bearer.Principal{}, false
	}
	if err != nil {
		// A framework HTTP error from the hook is a 500 like any other
		// unknown error: the hook refuses by returning a zero Principal.
		var httpErr *svcerrors.HTTPError
		if _, known := svcerrors.Describe(err); known && !errors.As(err, &httpErr) {
			// A refusal the hook raises is the gate's: its Bearer challenge
			// names the metadata like every other (the hook's ctx has no
			// gate in it yet for WithGateChallenge to find).
			if errors.As(err, &ref) && g.meta != nil && ref.resourceMetadata != g.meta.url {
				// A copy: the hook may hand the same *Refusal to every
				// request, and writing into it would race.
				err = ref.naming(g.meta.url)
			}
			svcerrors.Refuse(w, r, err)
		} else {
			g.internalError(w, r, fmt.Errorf("authn: check hook: %w", err))
		}
		return bearer.Principal{}, false
	}
	if isZeroPrincipal(got) {
		if g.cfg.endUser {
			setEndUser(r.Context(), p.Subject)
		}
		q.refuse(w, &Refusal{Kind: KindTokenRejected, Reason: bearer.ReasonRevoked}, false)
		return bearer.Principal{}, false
	}
	if !got.Authenticated {
		g.internalError(w, r, errors.New("authn: check hook returned a principal that is not Authenticated; return the zero Principal to refuse"))
		return bearer.Principal{}, false
	}
	return got, true
}

func isZeroPrincipal(p bearer.Principal) bool {
	return p.Subject == "" && p.Issuer == "" && p.Scopes == nil && p.Claims == nil && !p.Authenticated && p.Extra == nil
}
