package authn

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/svckit/svc/modules/authn/bearer"
)

// SignOuts remembers when callers signed out, so that tokens issued before
// stop working at once. Its Check method is a hook for [Check]: pass
// authn.Check(signOuts.Check).
//
// Times are kept in whole seconds and compared with the whole seconds of a
// token's `iat`: a token issued in the sign-out's second is refused, and so
// is a token without `iat` from a caller who signed out. Entries are
// forgotten after MaxTokenLifetime, by when every token they refuse has
// expired, so memory stays bounded by the sign-outs of that window.
type SignOuts struct {
	// MaxTokenLifetime is the longest lifetime of a token the issuer signs.
	// Default 24h.
	MaxTokenLifetime time.Duration
	// Now is the clock; default time.Now.
	Now func() time.Time

	mu  sync.Mutex
	out map[signOutKey]int64
}

type signOutKey struct{ issuer, subject string }

// SignOut records that the caller (issuer, subject) signed out at at.
func (s *SignOuts) SignOut(issuer, subject string, at time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.out == nil {
		s.out = map[signOutKey]int64{}
	}
	s.forgetExpired()
	s.out[signOutKey{issuer, subject}] = at.Unix()
}

func (s *SignOuts) forgetExpired() {
	horizon := s.now().Add(-s.lifetime()).Unix()
	for k, at := range s.out {
		if at < horizon {
			delete(s.out, k)
		}
	}
}

func (s *SignOuts) lifetime() time.Duration {
	if s.MaxTokenLifetime > 0 {
		return s.MaxTokenLifetime
	}
	return 24 * time.Hour
}

func (s *SignOuts) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// Check refuses (zero Principal) a caller whose token was issued at or
// before its sign-out, and serves every other caller unchanged.
func (s *SignOuts) Check(_ context.Context, p bearer.Principal, _ *http.Request) (bearer.Principal, error) {
	s.mu.Lock()
	at, signedOut := s.out[signOutKey{p.Issuer, p.Subject}]
	s.mu.Unlock()
	if !signedOut {
		return p, nil
	}
	if p.Claims == nil || p.Claims.IssuedAt.IsZero() || p.Claims.IssuedAt.Unix() <= at {
		return bearer.Principal{}, nil
	}
	return p, nil
}
