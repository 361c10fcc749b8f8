package bearer

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"go.uber.org/zap"

	"github.com/svckit/svc/modules/authn/internal/jsonscan"
	"github.com/svckit/svc/modules/store"
)

// Issuers trusts several issuers, each through its own verifier, built
// with Discover, JWKSURL or KeySet as for one issuer: its own discovery or
// JWKS URL, audience, algorithms, options and keys.
//
//	v := bearer.Issuers(
//		bearer.New("https://login.example.com", "api://orders"),
//		bearer.New("https://partner.example.net", "https://orders.example.com"),
//	)
//
// A token goes to the verifier of the issuer its `iss` names, read from
// the unverified payload before any key lookup, so only that issuer's keys
// are ever tried; that verifier then checks the token completely, `iss`
// included. A token whose `iss` names no issuer here is refused
// (ReasonIssuer) with no fetch at all, and one with no string `iss`
// (ReasonMalformed) likewise.
//
// The verifiers share one verification cache, the largest of their
// CacheBytes, read before the issuer: a cached token costs what it costs
// with one issuer. The first verifier's Clock reads the cache's time.
//
// It is a Verifier and opens and closes its verifiers with the app (in
// fxsvc.Authn as any verifier). Its Ready is nil once every issuer holds
// keys, else it names each issuer that does not. The protected-resource
// metadata lists every issuer as `authorization_servers`.
//
// An opaque token (not a JWS) names no issuer: it goes to the one
// verifier built with Introspect; with none, it is refused
// (ReasonMalformed) with a cause saying no issuer introspects. Two verifiers with Introspect are
// refused, since trying them in turn would hand one issuer's tokens to
// another's endpoint.
//
// It refuses, from Open and every Verify, no verifier, a nil one, two for
// one issuer, two that introspect, a verifier of another type, and any
// verifier's own settings error.
func Issuers(verifiers ...*JWTVerifier) Verifier {
	s := &issuerSet{byIssuer: make(map[string]*JWTVerifier, len(verifiers))}
	var problems []error
	if len(verifiers) == 0 {
		problems = append(problems, &ConfigError{Setting: "Issuers", Problem: "was given no verifier; pass one per issuer (bearer.Discover, bearer.JWKSURL, bearer.KeySet)"})
	}
	var budget int64
	for i, v := range verifiers {
		switch {
		case v == nil:
			problems = append(problems, &ConfigError{Setting: "Issuers", Problem: fmt.Sprintf("verifier %d is nil", i+1)})
			continue
		case v.err != nil:
			problems = append(problems, fmt.Errorf("issuer %s: %w", quoteSetting(v.cfg.issuer), v.err))
			continue
		case v.tenants != nil:
			s.templates = append(s.templates, v)
			s.members = append(s.members, v)
			budget = max(budget, v.cfg.cacheBytes)
			s.maxTokenSize = max(s.maxTokenSize, v.cfg.maxTokenSize)
			continue
		case s.byIssuer[v.cfg.issuer] != nil:
			problems = append(problems, &ConfigError{Setting: "Issuers", Problem: fmt.Sprintf("names the issuer %s twice; give each issuer one verifier", quoteSetting(v.cfg.issuer))})
			continue
		}
		if v.intro != nil {
			if s.introspecting != nil {
				problems = append(problems, &ConfigError{Setting: "Issuers", Problem: fmt.Sprintf("has two verifiers with bearer.Introspect (%s and %s); an opaque token names no issuer, so give Introspect to one", quoteSetting(s.introspecting.cfg.issuer), quoteSetting(v.cfg.issuer))})
				continue
			}
			s.introspecting = v
		}
		s.byIssuer[v.cfg.issuer] = v
		s.members = append(s.members, v)
		budget = max(budget, v.cfg.cacheBytes)
		s.maxTokenSize = max(s.maxTokenSize, v.cfg.maxTokenSize)
	}
	s.err = errors.Join(problems...)
	if s.err != nil {
		return s
	}
	s.clock = s.members[0].cfg.clock
	s.cache = newVerifyCache(budget)
	if s.cache != nil {
		s.cache.longest = s.maxTokenSize
	}
	for iss := range s.byIssuer {
		s.issuers = append(s.issuers, iss)
	}
	slices.Sort(s.issuers)
	s.listed = slices.Clone(s.issuers)
	for _, t := range s.templates {
		s.listed = append(s.listed, t.Issuers()...)
	}
	slices.Sort(s.listed)
	return s
}

// issuerSet is the Verifier Issuers returns.
type issuerSet struct {
	members      []*JWTVerifier // in the order given
	byIssuer     map[string]*JWTVerifier
	templates    []*JWTVerifier // issuer templates (Tenants, AnyTenant)
	issuers      []string       // of byIssuer, sorted
	listed       []string       // issuers and the templates' named tenants, sorted
	cache        *verifyCache
	clock        func() time.Time
	maxTokenSize int
	// introspecting is the member built with Introspect, nil for none:
	// it answers every opaque token.
	introspecting *JWTVerifier
	err           error
}

var _ Verifier = (*issuerSet)(nil)

var (
	errNoIssuer        = errors.New("payload has no string iss")
	errUntrustedIssuer = errors.New("issuer not trusted")
)

// Verify checks the cache, then hands the token to its issuer's verifier.
func (s *issuerSet) Verify(ctx context.Context, token string) (Principal, error) {
	if s.err != nil {
		return Principal{}, s.err
	}
	now := s.clock()
	if p, ok := s.cache.get(token, now); ok {
		return p, nil
	}
	if s.introspecting != nil && !isJWS(token) {
		return s.introspecting.intro.verify(ctx, token, now)
	}
	if te := notIntrospected(token, s.maxTokenSize); te != nil {
		return Principal{}, te
	}
	v, err := s.route(token)
	if err != nil {
		return Principal{}, err
	}
	return v.verifyAfterCache(ctx, token, now, s.cache)
}

// route reads iss from the unverified payload and returns its verifier.
func (s *issuerSet) route(token string) (*JWTVerifier, error) {
	iss, err := issuerOf(token, s.maxTokenSize, s.issuers)
	if err != nil {
		return nil, err
	}
	v := s.member(iss)
	if v == nil {
		return nil, refuse(ReasonIssuer, fmt.Errorf("%w: iss %s is none of the %d issuers", errUntrustedIssuer, quoteSetting(iss), len(s.issuers)))
	}
	return v, nil
}

// member returns the verifier of the issuer iss names, an issuer template
// for one of its tenants, nil for none.
func (s *issuerSet) member(iss string) *JWTVerifier {
	if v := s.byIssuer[iss]; v != nil {
		return v
	}
	for _, t := range s.templates {
		if t.tenants.tenantOf(iss) != "" {
			return t
		}
	}
	return s.altMember(iss)
}

// issuerOf reads iss from token's unverified payload. The size limit and
// the token's shape are checked first, as the split step does, so nothing
// is scanned of a token the verifier would refuse; a string equal to one
// of known allocates nothing.
func issuerOf(token string, maxSize int, known []string) (string, error) {
	seg, terr := split(token, maxSize)
	if terr != nil {
		return "", terr
	}
	var buf [16]jsonscan.Member
	members, err := jsonscan.Members(seg.payload, buf[:0], known)
	if err != nil {
		return "", refuse(ReasonMalformed, err)
	}
	iss, found := "", false
	for _, m := range members {
		if m.Name != "iss" {
			continue
		}
		if found || !m.IsText {
			// Two iss members, or one not a string: the claims step
			// would refuse the token anyway; no issuer is asked.
			return "", refuse(ReasonMalformed, errNoIssuer)
		}
		iss, found = m.Text, true
	}
	if !found {
		return "", refuse(ReasonMalformed, errNoIssuer)
	}
	return iss, nil
}

// Name identifies the set in lifecycle errors and logs.
func (s *issuerSet) Name() string { return "authn/issuers" }

// Open opens every verifier; it never waits for the network.
func (s *issuerSet) Open(ctx context.Context) error {
	if s.err != nil {
		return s.err
	}
	for i, v := range s.members {
		if err := v.Open(ctx); err != nil {
			for _, opened := range s.members[:i] {
				_ = opened.Close(ctx)
			}
			return fmt.Errorf("issuer %s: %w", quoteSetting(v.cfg.issuer), err)
		}
	}
	return nil
}

// Close closes every verifier.
func (s *issuerSet) Close(ctx context.Context) error {
	if s.err != nil {
		return nil
	}
	var errs []error
	for _, v := range s.members {
		errs = append(errs, v.Close(ctx))
	}
	return errors.Join(errs...)
}

// Ready is nil once every issuer holds keys; otherwise it names each one
// that does not, with its reason.
func (s *issuerSet) Ready() error {
	if s.err != nil {
		return s.err
	}
	var errs []error
	for _, v := range s.members {
		if err := v.Ready(); err != nil {
			errs = append(errs, fmt.Errorf("issuer %s: %w", v.cfg.issuer, err))
		}
	}
	return errors.Join(errs...)
}

// settingsError returns the construction error, as JWTVerifier's does.
func (s *issuerSet) settingsError() error { return s.err }

// introspectionEndpoint returns the endpoint of the member with
// Introspect, "" for none.
func (s *issuerSet) introspectionEndpoint() string {
	if s.introspecting == nil {
		return ""
	}
	return s.introspecting.introspectionEndpoint()
}

// discoveryURL is "": several issuers have several documents.
func (s *issuerSet) discoveryURL() string { return "" }

// Issuers lists the trusted issuers, sorted.
func (s *issuerSet) Issuers() []string { return slices.Clone(s.listed) }

// shareIntrospections gives the member with Introspect the app's shared
// store, unless it has its own.
func (s *issuerSet) shareIntrospections(st store.Introspections) {
	if s.introspecting != nil {
		s.introspecting.shareIntrospections(st)
	}
}

// setLogger gives each verifier built without its own Logger the app's.
func (s *issuerSet) setLogger(l *zap.Logger) {
	for _, v := range s.members {
		v.setLogger(l)
	}
}
