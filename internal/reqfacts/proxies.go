package reqfacts

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// Proxies are the networks of the app's proxies, whose forwarding headers
// are believed. Empty: the peer is the client, and no header is read.
type Proxies []netip.Prefix

// ParseProxies reads CIDRs such as "10.0.0.0/8" or "fd00::/8"; a bare
// address means that one host (/32, /128). Blank entries are skipped. It
// refuses an entry that is neither, one with an IPv6 zone, and a network
// that trusts every address (any caller could then pick its own address,
// and with it its own budget and ban counter), with a *ProxyError; the
// caller names the setting the entry came from.
func ParseProxies(cidrs []string) (Proxies, error) {
	out := make(Proxies, 0, len(cidrs))
	for _, c := range cidrs {
		c = strings.TrimSpace(c)
		if c == "" {
			continue
		}
		p, err := netip.ParsePrefix(c)
		if err != nil {
			a, aerr := netip.ParseAddr(c)
			if aerr != nil || a.Zone() != "" {
				return nil, &ProxyError{Entry: c, Problem: "is not a CIDR such as 10.0.0.0/8 or fd00::/8, nor an address"}
			}
			p = netip.PrefixFrom(a, a.BitLen())
		}
		if p.Addr().Is4In6() && p.Bits() >= 96 {
			// Addresses are compared unmapped: so must the network be.
			p = netip.PrefixFrom(p.Addr().Unmap(), p.Bits()-96)
		}
		if p.Bits() == 0 {
			return nil, &ProxyError{Entry: c, Problem: "trusts every address, so any caller could forge its own: list your proxies' networks"}
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

// ProxyError is a trusted-proxy entry [ParseProxies] refuses. The entry is
// quoted: a proxy's network is no secret.
type ProxyError struct {
	Entry   string
	Problem string
}

func (e *ProxyError) Error() string { return fmt.Sprintf("%q %s", e.Entry, e.Problem) }

func (t Proxies) contains(a netip.Addr) bool {
	for _, p := range t {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// ClientAddress names the caller of r. It is the peer, unless the peer is
// one of the proxies: then the forwarding chain is walked from the right
// (the entries the proxies appended) to the first address that is not a
// proxy. The chain is X-Forwarded-For when the request has one, else the
// for= parameters of RFC 7239 Forwarded: a proxy appends to one of them
// and passes the other on from the client, and the proxies in front of
// most services (nginx, HAProxy, Envoy, cloud load balancers) append
// X-Forwarded-For. A proxy that writes only Forwarded must drop the
// client's X-Forwarded-For.
//
// An entry is an address with or without a port, IPv6 in brackets when it
// has one; IPv4-mapped IPv6 addresses are named as IPv4. An entry that is
// none of these (a Forwarded obfuscated identifier such as "_hidden" or
// "unknown", an empty or malformed one) stops the walk at the last address
// known good, so callers that cannot be told apart share it and none can
// name another. A peer that is no address (a Unix socket) is named as
// net/http gives it.
func (t Proxies) ClientAddress(r *http.Request) string {
	host, peer, ok := peerAddr(r.RemoteAddr)
	if !ok {
		return r.RemoteAddr
	}
	if len(t) == 0 || !t.contains(peer) {
		return host
	}
	client := peer
	if xff := r.Header.Values("X-Forwarded-For"); len(xff) > 0 {
		walkXFF(xff, func(hop string) bool {
			a, ok := parseHop(hop)
			if !ok {
				return false
			}
			client = a
			return t.contains(a)
		})
		return client.String()
	}
	hops := forwardedFor(r.Header.Values("Forwarded"))
	for i := len(hops) - 1; i >= 0; i-- {
		a, ok := parseHop(hops[i])
		if !ok {
			break
		}
		client = a
		if !t.contains(a) {
			break
		}
	}
	return client.String()
}

// peerAddr reads RemoteAddr: the peer, and its name, which is a slice of
// RemoteAddr when that spells it as [netip.Addr.String] would, so that the
// common request (a direct caller) allocates nothing for it.
func peerAddr(remote string) (name string, peer netip.Addr, ok bool) {
	host := remote
	if h, _, err := net.SplitHostPort(remote); err == nil {
		host = h
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return "", netip.Addr{}, false
	}
	if a.Is4() {
		// netip spells an IPv4 address one way only, the way it parses.
		return host, a, true
	}
	peer = a.Unmap().WithZone("")
	var buf [64]byte
	if string(peer.AppendTo(buf[:0])) == host {
		return host, peer, true
	}
	return peer.String(), peer, true
}

// walkXFF calls hop with each X-Forwarded-For entry, the last line's last
// entry first, until hop returns false. It splits nothing: a proxy's
// request pays no allocation for the walk.
func walkXFF(lines []string, hop func(string) bool) {
	for i := len(lines) - 1; i >= 0; i-- {
		line := lines[i]
		for {
			j := strings.LastIndexByte(line, ',')
			if !hop(strings.TrimSpace(line[j+1:])) {
				return
			}
			if j < 0 {
				break
			}
			line = line[:j]
		}
	}
}

// parseHop reads one entry of the chain: an address, or an address and a
// port, IPv6 bracketed when a port follows ("[2001:db8::1]:443"), a
// bracketed IPv6 alone, or an address with an obfuscated port
// ("192.0.2.7:_p1", RFC 7239 §6.3). A zone is refused: it is the sender's
// free text, not part of an address.
func parseHop(s string) (netip.Addr, bool) {
	host := s
	if strings.HasPrefix(s, "[") {
		end := strings.IndexByte(s, ']')
		if end < 0 {
			return netip.Addr{}, false
		}
		host = s[1:end]
		if rest := s[end+1:]; rest != "" && !validPort(strings.TrimPrefix(rest, ":"), rest[0] == ':') {
			return netip.Addr{}, false
		}
		a, err := netip.ParseAddr(host)
		if err != nil || !a.Is6() {
			return netip.Addr{}, false
		}
		return unzoned(a)
	}
	if strings.Count(s, ":") == 1 {
		var port string
		host, port, _ = strings.Cut(s, ":")
		if !validPort(port, true) {
			return netip.Addr{}, false
		}
		a, err := netip.ParseAddr(host)
		if err != nil || !a.Is4() {
			return netip.Addr{}, false
		}
		return a, true
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return netip.Addr{}, false
	}
	return unzoned(a)
}

func unzoned(a netip.Addr) (netip.Addr, bool) {
	if a.Zone() != "" {
		return netip.Addr{}, false
	}
	return a.Unmap(), true
}

// validPort is a port number, or an obfuscated port ("_" and letters,
// digits, ".", "_", "-").
func validPort(p string, colon bool) bool {
	if !colon || p == "" {
		return false
	}
	if p[0] == '_' {
		for _, c := range p[1:] {
			if !isObfChar(c) {
				return false
			}
		}
		return len(p) > 1
	}
	if len(p) > 5 {
		return false
	}
	n := 0
	for _, c := range p {
		if c < '0' || c > '9' {
			return false
		}
		n = n*10 + int(c-'0')
	}
	return n <= 65535
}

func isObfChar(c rune) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-'
}
