package oauthclient

import (
	"context"

	"golang.org/x/oauth2"
)

// TokenSource returns the pattern as a golang.org/x/oauth2 TokenSource, so
// that anything written for x/oauth2 (Google API clients, gRPC's
// credentials/oauth.TokenSource, oauth2.Transport) carries the pattern's
// tokens with its cache, background refresh and failure memory behind them.
//
// ctx bounds each Token call's wait for a fetch; cancelling it ends waits,
// never a fetch in progress (the client owns fetches). The source is safe
// for concurrent use and already caches: do not wrap it in
// oauth2.ReuseTokenSource, which would hold a lock across refreshes.
// Token returns the errors of [Pattern.Token]; on a token-exchange pattern
// use [Pattern.TokenSourceFor].
//
// A TokenSource cannot carry a DPoP-bound token ([DPoP]): x/oauth2 sends
// what it hands out as it is, and a DPoP token needs a fresh proof signed
// for each request. Token refuses one with an error naming
// [Pattern.Transport], which sends it with its proofs, rather than hand
// out a token every API would refuse. Nor can it carry a token bound to
// the client's TLS certificate ([TLSClientAuth]): x/oauth2 sends it over
// whatever transport it has, and Token refuses it the same way. An opaque
// token fetched with a certificate counts as bound.
func (p *Pattern) TokenSource(ctx context.Context) oauth2.TokenSource {
	return patternSource{ctx: ctx, p: p}
}

// TokenSourceFor is [Pattern.TokenSource] for a token-exchange pattern,
// on behalf of the caller whose verified token is callerToken.
func (p *Pattern) TokenSourceFor(ctx context.Context, callerToken string) oauth2.TokenSource {
	return patternSource{ctx: ctx, p: p, caller: callerToken, exchange: true}
}

type patternSource struct {
	ctx      context.Context
	p        *Pattern
	caller   string
	exchange bool
}

func (s patternSource) Token() (*oauth2.Token, error) {
	t, _, err := s.p.token(s.ctx, s.caller, s.exchange)
	switch {
	case err != nil:
		return nil, err
	case t.ath != "":
		return nil, errDPoPTokenSource
	case t.cert != nil:
		return nil, errBoundTokenSource
	}
	return &oauth2.Token{AccessToken: t.Value, TokenType: t.TokenType, Expiry: t.ExpiresAt}, nil
}
