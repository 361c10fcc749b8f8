package oauthclient

import (
	"sync"
	"time"
)

// memo is one remembered failure.
type memo struct {
	err   error
	until time.Time
}

func (m memo) active(now time.Time) error {
	if m.err != nil && now.Before(m.until) {
		return m.err
	}
	return nil
}

// failureMemory holds the failures that stop fetches for a while: for the
// whole client (server down, timeouts, 5xx, Retry-After, invalid_client,
// failed discovery) and per grant (unauthorized_client). Failures of one
// token live in that token's slot.
type failureMemory struct {
	mu     sync.Mutex
	client memo
	grants map[string]memo
}

// check returns the remembered failure that forbids a fetch for grant now,
// or nil. An empty grant checks the client-wide memory only.
func (m *failureMemory) check(grant string, now time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.client.active(now); err != nil {
		return err
	}
	if grant == "" {
		return nil
	}
	return m.grants[grant].active(now)
}

func (m *failureMemory) rememberClient(err error, until time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	// A longer remembered wait (a Retry-After) is not cut short by a later,
	// shorter one.
	if m.client.err != nil && m.client.until.After(until) {
		return
	}
	m.client = memo{err: err, until: until}
}

func (m *failureMemory) rememberGrant(grant string, err error, until time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.grants == nil {
		m.grants = make(map[string]memo)
	}
	m.grants[grant] = memo{err: err, until: until}
}
