package store

import (
	"container/list"
	"context"
	"net/http"
	"time"
)

type idemRecord struct {
	fingerprint string
	owner       string // "" once completed
	expires     time.Time
	resp        *Response
	stored      time.Time
}

// Claim implements [Idempotency].
func (m *Memory) Claim(_ context.Context, k Key, fingerprint, owner string, lease time.Duration) (Claim, error) {
	now := m.now()
	m.idemMu.Lock()
	defer m.idemMu.Unlock()
	if rec, ok := m.idem[k]; ok && now.Before(rec.expires) {
		switch {
		case rec.fingerprint != fingerprint:
			return Claim{State: Mismatch}, nil
		case rec.resp == nil:
			return Claim{State: InFlight}, nil
		}
		// Shared, not copied: a stored response never changes, and
		// callers must not modify it.
		return Claim{State: Done, Response: rec.resp, Stored: rec.stored}, nil
	}
	if len(m.idem) >= m.maxRecords {
		m.evictRecords(now)
	}
	m.idem[k] = &idemRecord{fingerprint: fingerprint, owner: owner, expires: now.Add(lease)}
	return Claim{State: Claimed}, nil
}

// evictRecords drops expired records, then completed ones, until a
// sixteenth of the bound is free: each pass walks the whole table under
// the lock, so freeing room for one record would make every claim of a
// full store pay that walk. Records in flight stay: dropping one would run
// its request twice.
func (m *Memory) evictRecords(now time.Time) {
	for k, rec := range m.idem {
		if !now.Before(rec.expires) {
			delete(m.idem, k)
		}
	}
	room := m.maxRecords - max(1, m.maxRecords/16)
	for k, rec := range m.idem {
		if len(m.idem) <= room {
			return
		}
		if rec.resp != nil {
			delete(m.idem, k)
		}
	}
}

// Complete implements [Idempotency].
func (m *Memory) Complete(_ context.Context, k Key, owner string, resp Response, ttl time.Duration) error {
	now := m.now()
	m.idemMu.Lock()
	defer m.idemMu.Unlock()
	rec, ok := m.idem[k]
	if !ok || rec.owner != owner || rec.resp != nil {
		return nil
	}
	rec.owner, rec.resp, rec.stored, rec.expires = "", cloneResponse(&resp), now, now.Add(ttl)
	return nil
}

// Renew implements [Idempotency].
func (m *Memory) Renew(_ context.Context, k Key, owner string, lease time.Duration) (bool, error) {
	now := m.now()
	m.idemMu.Lock()
	defer m.idemMu.Unlock()
	rec, ok := m.idem[k]
	if !ok || rec.owner != owner || rec.resp != nil || !now.Before(rec.expires) {
		return false, nil
	}
	rec.expires = now.Add(lease)
	return true, nil
}

// Release implements [Idempotency].
func (m *Memory) Release(_ context.Context, k Key, owner string) error {
	m.idemMu.Lock()
	defer m.idemMu.Unlock()
	if rec, ok := m.idem[k]; ok && rec.owner == owner && rec.resp == nil {
		delete(m.idem, k)
	}
	return nil
}

// cloneResponse copies a response so that neither the store nor a caller
// sees the other's later writes.
func cloneResponse(r *Response) *Response {
	return &Response{Status: r.Status, Header: r.Header.Clone(), Body: append([]byte(nil), r.Body...)}
}

type cacheItem struct {
	key     Key
	entry   Entry
	expires time.Time
	size    int
}

// Get implements [Cache]. The entry's header and body are shared with the
// store: callers must not modify them.
func (m *Memory) Get(_ context.Context, k Key) (Entry, bool, error) {
	now := m.now()
	m.cacheMu.Lock()
	defer m.cacheMu.Unlock()
	el, ok := m.cache[k]
	if !ok {
		return Entry{}, false, nil
	}
	it := el.Value.(*cacheItem)
	if !now.Before(it.expires) {
		m.removeItem(el)
		return Entry{}, false, nil
	}
	m.lru.MoveToFront(el)
	return it.entry, true, nil
}

// Set implements [Cache].
func (m *Memory) Set(_ context.Context, k Key, e Entry, ttl time.Duration) error {
	if ttl <= 0 {
		return nil
	}
	e.Response = *cloneResponse(&e.Response)
	if e.Response.Header == nil {
		e.Response.Header = http.Header{}
	}
	it := &cacheItem{key: k, entry: e, expires: m.now().Add(ttl), size: e.Response.size() + len(k.Space) + len(k.Owner) + len(k.ID)}
	m.cacheMu.Lock()
	defer m.cacheMu.Unlock()
	if el, ok := m.cache[k]; ok {
		m.removeItem(el)
	}
	if it.size > m.maxBytes {
		return nil
	}
	for m.size+it.size > m.maxBytes {
		m.removeItem(m.lru.Back())
	}
	m.cache[k] = m.lru.PushFront(it)
	m.size += it.size
	return nil
}

// Delete implements [Cache].
func (m *Memory) Delete(_ context.Context, k Key) error {
	m.cacheMu.Lock()
	defer m.cacheMu.Unlock()
	if el, ok := m.cache[k]; ok {
		m.removeItem(el)
	}
	return nil
}

func (m *Memory) removeItem(el *list.Element) {
	it := el.Value.(*cacheItem)
	m.lru.Remove(el)
	delete(m.cache, it.key)
	m.size -= it.size
}
