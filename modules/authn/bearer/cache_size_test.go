package bearer

import "github.com/maypok86/otter/v2"

// cacheSize reads an otter cache's entries and their summed weight, for
// the tests of the verification and introspection caches.
func cacheSize[K comparable, V any](m *otter.Cache[K, V]) (entries int, weight uint64) {
	m.CleanUp()
	return m.EstimatedSize(), m.WeightedSize()
}

func (c *verifyCache) len() int {
	if c == nil {
		return 0
	}
	n, _ := cacheSize(c.m)
	return n
}

func (c *verifyCache) weight() uint64 {
	if c == nil {
		return 0
	}
	_, w := cacheSize(c.m)
	return w
}

func (c *introspectCache) len() int {
	if c == nil {
		return 0
	}
	n, _ := cacheSize(c.m)
	return n
}

func (c *introspectCache) weight() uint64 {
	if c == nil {
		return 0
	}
	_, w := cacheSize(c.m)
	return w
}
