// Package spiffe gives the outbound token client a SPIFFE JWT-SVID from
// the Workload API as its client assertion, so a service authenticates to
// its authorization server with the identity its platform issued (SPIRE,
// or any Workload API) and holds no client secret or key of its own:
//
//	src, err := spiffe.New(ctx, "", "https://login.example.com") // SPIFFE_ENDPOINT_SOCKET
//	...
//	client, err := oauthclient.New(oauthclient.Assertion(src.Assertion))
//
// The assertion is sent as an RFC 7523 client assertion
// (client_assertion_type jwt-bearer), the form the identity providers'
// workload identity federation accepts (Entra, Okta, Keycloak, Auth0).
// The authorization server must trust the SPIFFE trust domain's JWT
// bundle and know the SPIFFE ID as the client's subject.
//
// It lives in its own package so that go-spiffe and its gRPC client enter
// only the binaries that use it.
package spiffe

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spiffe/go-spiffe/v2/svid/jwtsvid"
	"github.com/spiffe/go-spiffe/v2/workloadapi"
)

// Source holds a JWT-SVID for one audience, fetched from the Workload API
// and fetched again once half its lifetime has passed. It is safe for
// concurrent use; Close releases its connection.
type Source struct {
	client   *workloadapi.Client
	audience string
	now      func() time.Time

	turn    chan struct{} // one fetch at a time, waited for under ctx; guards the SVID below
	token   string
	fetched time.Time
	expiry  time.Time
}

// New connects to the Workload API at addr ("unix:///run/spire/agent.sock"
// or "tcp://127.0.0.1:8081"; "" takes the SPIFFE_ENDPOINT_SOCKET
// environment variable) and returns a Source of JWT-SVIDs whose audience
// is audience: the authorization server's issuer or token endpoint, as it
// expects in a client assertion. It does not wait for the Workload API:
// the first [Source.Assertion] fetches. It refuses an empty audience and
// an address go-spiffe cannot use.
func New(ctx context.Context, addr, audience string) (*Source, error) {
	if audience == "" {
		return nil, errors.New("spiffe: the audience is empty: pass the authorization server's issuer or token endpoint")
	}
	var opts []workloadapi.ClientOption
	if addr != "" {
		opts = append(opts, workloadapi.WithAddr(addr))
	}
	client, err := workloadapi.New(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("spiffe: the Workload API address (SPIFFE_ENDPOINT_SOCKET or addr): %w", err)
	}
	return &Source{client: client, audience: audience, now: time.Now, turn: make(chan struct{}, 1)}, nil
}

// minMargin is the least lifetime a held JWT-SVID must have left to be
// served: the authorization server refuses an expired assertion with
// invalid_client, which the client then remembers for all its tokens.
const minMargin = 30 * time.Second

// Assertion returns the current JWT-SVID, fetching a new one when none is
// held or half of the held one's lifetime has passed; pass it to
// oauthclient.Assertion. When a fetch fails, it returns the held SVID
// while that has a margin left, so a Workload API restart does not stop
// token requests: at least 30 seconds, or the time left until ctx's
// deadline (oauthclient gives the client's timeout) when that is longer,
// so that the SVID outlives the token request that carries it. An SVID
// with less left is not served, and the fetch's error is returned. ctx
// bounds the fetch.
func (s *Source) Assertion(ctx context.Context) (string, error) {
	select {
	case s.turn <- struct{}{}:
		defer func() { <-s.turn }()
	case <-ctx.Done():
		return "", fmt.Errorf("spiffe: waiting for the JWT-SVID fetch under way: %w", ctx.Err())
	}
	now := s.now()
	margin := minMargin
	if d, ok := ctx.Deadline(); ok {
		margin = max(margin, time.Until(d))
	}
	usable := s.token != "" && now.Add(margin).Before(s.expiry)
	if usable && now.Before(s.fetched.Add(s.expiry.Sub(s.fetched)/2)) {
		return s.token, nil
	}
	svid, err := s.client.FetchJWTSVID(ctx, jwtsvid.Params{Audience: s.audience})
	if err != nil {
		if usable {
			return s.token, nil
		}
		return "", fmt.Errorf("spiffe: fetching a JWT-SVID for audience %q: %w", s.audience, err)
	}
	s.token, s.fetched, s.expiry = svid.Marshal(), now, svid.Expiry
	return s.token, nil
}

// Close closes the connection to the Workload API.
func (s *Source) Close() error { return s.client.Close() }
