package behind

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// Trusted are the networks of the app's proxies, whose forwarding headers
// are believed. Empty: the peer address is the client.
type Trusted []netip.Prefix

// ParseTrusted reads CIDRs (or single addresses). It refuses a network
// that trusts every address: any caller could then pick its own address,
// and so its own budget. option names the setting in errors.
func ParseTrusted(option string, cidrs []string) (Trusted, error) {
	out := make(Trusted, 0, len(cidrs))
	for _, c := range cidrs {
		c = strings.TrimSpace(c)
		p, err := netip.ParsePrefix(c)
		if err != nil {
			a, aerr := netip.ParseAddr(c)
			if aerr != nil {
				return nil, fmt.Errorf("%s(%q): not a CIDR such as 10.0.0.0/8 or fd00::/8", option, c)
			}
			p = netip.PrefixFrom(a, a.BitLen())
		}
		if p.Bits() == 0 {
			return nil, fmt.Errorf("%s(%q): trusts every address, so a caller could forge its own: list your proxies' networks", option, c)
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

func (t Trusted) contains(a netip.Addr) bool {
	a = a.Unmap()
	for _, p := range t {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// ClientAddress is the caller's address: the peer's host, unless the peer
// is a trusted proxy; then X-Forwarded-For is walked from the right (the
// entries proxies appended) to the first address that is not a trusted
// proxy. A malformed entry stops the walk at the last address known good.
// The common case (no trusted proxies) returns a slice of RemoteAddr and
// allocates nothing.
func (t Trusted) ClientAddress(r *http.Request) string {
	host := r.RemoteAddr
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	if len(t) == 0 {
		return host
	}
	peer, err := netip.ParseAddr(host)
	if err != nil || !t.contains(peer) {
		return host
	}
	client := host
	hops := r.Header.Values("X-Forwarded-For")
	for i := len(hops) - 1; i >= 0; i-- {
		line := hops[i]
		for line != "" {
			var hop string
			if j := strings.LastIndexByte(line, ','); j >= 0 {
				hop, line = strings.TrimSpace(line[j+1:]), line[:j]
			} else {
				hop, line = strings.TrimSpace(line), ""
			}
			a, err := netip.ParseAddr(strings.Trim(hop, "[]"))
			if err != nil {
				return client
			}
			client = hop
			if !t.contains(a) {
				return client
			}
		}
	}
	return client
}
