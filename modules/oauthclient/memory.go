package oauthclient

import (
	"sync"
	"time"
)

// memo is one remembered failure.
type memo struct {
	err   error
	until time.Time
	since time.Time // when the failure was remembered
	// firm marks a wait the server asked for (Retry-After): it is kept in
	// full even past a cached token's expiry.
	firm bool
}

// active returns the remembered failure when it still forbids a fetch at
// now, or nil. alive is when the asking slot's cached token expires (zero
// when it has none, or for an exchange). A failure remembered while that
// token was alive forbids fetches at most until the token expires: a
// refresh that failed late in the token's life must not leave the pattern
// without a token while the server may well answer the next fetch. The
// slot then gets one fetch; a failure of that fetch is remembered after the
// token's end and so in full.
func (m memo) active(now, alive time.Time) error {
	if m.err == nil || !now.Before(m.until) {
		return nil
	}
	if !m.firm && !alive.IsZero() && m.since.Before(alive) && !now.Before(alive) {
		return nil
	}
	return m.err
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
// or nil. An empty grant checks the client-wide memory only. alive is as
// for memo.active.
func (m *failureMemory) check(grant string, now, alive time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.client.active(now, alive); err != nil {
		return err
	}
	if grant == "" {
		return nil
	}
	return m.grants[grant].active(now, alive)
}

// rememberClient remembers err for the whole client from now until until;
// firm marks a wait the server asked for.
func (m *failureMemory) rememberClient(err error, now, until time.Time, firm bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	// A longer remembered wait (a Retry-After) is not cut short by a later,
	// shorter one.
	if m.client.err != nil && m.client.until.After(until) {
		return
	}
	m.client = memo{err: err, until: until, since: now, firm: firm}
}

func (m *failureMemory) rememberGrant(grant string, err error, now, until time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.grants == nil {
		m.grants = make(map[string]memo)
	}
	m.grants[grant] = memo{err: err, until: until, since: now}
}
