package store

// RateKeys counts the rate-limit keys kept, for tests of the bound.
func RateKeys(m *Memory) int {
	n := 0
	for i := range m.shards {
		m.shards[i].mu.Lock()
		n += len(m.shards[i].tat)
		m.shards[i].mu.Unlock()
	}
	return n
}

// Records counts the idempotency records kept.
func Records(m *Memory) int {
	m.idemMu.Lock()
	defer m.idemMu.Unlock()
	return len(m.idem)
}
