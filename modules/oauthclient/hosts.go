package oauthclient

import (
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// otherHosts is the server.address of the entry hosts over MaxHosts
// share: a pattern redirected to ever new hosts must not grow the metric
// series, nor the memory, without end.
const otherHosts = "other"

// hosts holds a pattern's [host] entries, by the request URL's host
// (host:port as written). Readers take no lock: the map is replaced,
// never written, and only grows to MaxHosts.
type hosts struct {
	cfg   *Resilience
	table atomic.Pointer[map[string]*host]
	other *host

	mu sync.Mutex // serialises additions
}

func newHosts(cfg *Resilience) *hosts {
	hs := &hosts{cfg: cfg, other: &host{addr: otherHosts, cfg: cfg}}
	m := map[string]*host{}
	hs.table.Store(&m)
	return hs
}

// get returns the entry of u's host, adding it while there is room.
func (hs *hosts) get(u *url.URL) *host {
	key := u.Host
	if h := (*hs.table.Load())[key]; h != nil {
		return h
	}
	hs.mu.Lock()
	defer hs.mu.Unlock()
	old := *hs.table.Load()
	if h := old[key]; h != nil {
		return h
	}
	if len(old) >= hs.cfg.MaxHosts {
		return hs.other
	}
	h := &host{addr: u.Hostname(), port: urlPort(u), cfg: hs.cfg, breaker: !hs.cfg.NoBreaker}
	m := make(map[string]*host, len(old)+1)
	for k, v := range old {
		m[k] = v
	}
	m[key] = h
	hs.table.Store(&m)
	return h
}

// urlPort is u's port, or its scheme's (443 for https, 80 otherwise)
// when it names none: breakers are per host and port, and so is
// server.port.
func urlPort(u *url.URL) int {
	if p, err := strconv.Atoi(u.Port()); err == nil {
		return p
	}
	if strings.EqualFold(u.Scheme, "https") {
		return 443
	}
	return 80
}

// tripped lists the hosts (server.address) whose breaker is not closed,
// sorted.
func (hs *hosts) tripped() []string {
	var out []string
	for _, h := range *hs.table.Load() {
		if h.tripped() {
			out = append(out, h.addr)
		}
	}
	sort.Strings(out)
	return out
}

// OpenBreakers lists, sorted, the hosts (server.address) whose circuit
// breaker is open or waits for its probe: none for a pattern without
// [Resilience], or with NoBreaker. fxsvc's degraded readiness check reads
// it; an app may show it on a status page of its own.
func (p *Pattern) OpenBreakers() []string {
	if p.hosts == nil {
		return nil
	}
	return p.hosts.tripped()
}

// BreakersDegradeReadiness reports whether the pattern's open breakers
// should show on /readyz as degraded: its [Resilience] has Degraded set
// (in code, or by SVC_..._<NAME>_RESILIENCE=degraded) and breakers on.
// fxsvc adds the readiness check when it does.
func (p *Pattern) BreakersDegradeReadiness() bool {
	return p.resilience != nil && p.resilience.Degraded && !p.resilience.NoBreaker
}
