package devissuer

import (
	"crypto/rand"
	"sync"
	"time"
)

// refreshLifetime is how long a refresh token renews its grant.
const refreshLifetime = 24 * time.Hour

// maxHeld bounds each map of the store; past it, what has expired is
// dropped first (a development server is not a token database).
const maxHeld = 10000

// tokenStore remembers what an issuer issued, for introspection,
// revocation and refresh: opaque tokens by value, JWTs by jti, refresh
// tokens by value.
type tokenStore struct {
	mu      sync.Mutex
	held    map[string]*held // opaque token or JWT jti → its claims
	refresh map[string]*refreshGrant
}

type held struct {
	claims  map[string]any
	exp     time.Time
	revoked bool
}

// refreshGrant is what a refresh token renews: the token it came with,
// to be minted again, and until when.
type refreshGrant struct {
	token Token
	exp   time.Time
}

func newTokenStore() *tokenStore {
	return &tokenStore{held: map[string]*held{}, refresh: map[string]*refreshGrant{}}
}

func (s *tokenStore) put(key string, claims map[string]any, exp time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.held) >= maxHeld {
		now := time.Now()
		for k, h := range s.held {
			if h.exp.Before(now) {
				delete(s.held, k)
			}
		}
	}
	s.held[key] = &held{claims: claims, exp: exp}
}

// get returns what is held under key and whether it is live: known, not
// revoked, not expired.
func (s *tokenStore) get(key string) (map[string]any, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h, ok := s.held[key]
	if !ok || h.revoked || !time.Now().Before(h.exp) {
		return nil, false
	}
	return h.claims, true
}

// revoke marks key revoked (RFC 7009: an unknown token is no error).
func (s *tokenStore) revoke(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if h, ok := s.held[key]; ok {
		h.revoked = true
	}
}

// revokeRefresh forgets a refresh token.
func (s *tokenStore) revokeRefresh(tok string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.refresh, tok)
}

func (s *tokenStore) putRefresh(t Token) string {
	tok := "devrt_" + rand.Text() + rand.Text()
	now := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.refresh) >= maxHeld {
		for k, g := range s.refresh {
			if g.exp.Before(now) {
				delete(s.refresh, k)
			}
		}
	}
	s.refresh[tok] = &refreshGrant{token: t, exp: now.Add(refreshLifetime)}
	return tok
}

// takeRefresh spends a live refresh token: each is used once (the answer
// carries the next one).
func (s *tokenStore) takeRefresh(tok string) (Token, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	g, ok := s.refresh[tok]
	delete(s.refresh, tok)
	if !ok || !time.Now().Before(g.exp) {
		return Token{}, false
	}
	return g.token, true
}
