package authn

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// trustedProxies are the networks whose forwarding headers the gate
// believes.
type trustedProxies []netip.Prefix

// TrustedError is a Trusted CIDR the gate refuses.
type TrustedError struct {
	CIDR    string
	Problem string
}

func (e *TrustedError) Error() string {
	return fmt.Sprintf("authn: Trusted(%q) %s", e.CIDR, e.Problem)
}

func parseTrusted(cidrs []string) (trustedProxies, error) {
	out := make(trustedProxies, 0, len(cidrs))
	for _, c := range cidrs {
		p, err := netip.ParsePrefix(strings.TrimSpace(c))
		if err != nil {
			if a, aerr := netip.ParseAddr(strings.TrimSpace(c)); aerr == nil {
				p = netip.PrefixFrom(a, a.BitLen())
			} else {
				return nil, &TrustedError{c, "is not a CIDR such as 10.0.0.0/8 or fd00::/8"}
			}
		}
		if p.Bits() == 0 {
			return nil, &TrustedError{c, "trusts every address, so any caller could forge its own address: list your proxies' networks"}
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

func (t trustedProxies) contains(a netip.Addr) bool {
	a = a.Unmap()
	for _, p := range t {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// clientAddress is the caller's address: the peer, unless the peer is a
// trusted proxy, in which case the forwarding headers are walked from the
// right (the entries proxies appended) to the first address that is not a
// trusted proxy. X-Forwarded-For wins over Forwarded (RFC 7239), which is
// read only when no X-Forwarded-For came: a proxy appends to one of them
// and passes the other through from the client, and the proxies in front
// of most services (nginx, HAProxy, Envoy, cloud load balancers) append
// X-Forwarded-For. The rate limiter reads X-Forwarded-For too, so both
// see one address. A malformed entry stops the walk at the last address
// known good, so callers that cannot be told apart share it.
func (t trustedProxies) clientAddress(r *http.Request) string {
	peer := peerAddr(r.RemoteAddr)
	if !peer.IsValid() {
		return r.RemoteAddr
	}
	if len(t) == 0 || !t.contains(peer) {
		return peer.String()
	}
	hops := forwardedFor(r.Header)
	client := peer
	for i := len(hops) - 1; i >= 0; i-- {
		a := parseHop(hops[i])
		if !a.IsValid() {
			break
		}
		client = a.Unmap()
		if !t.contains(client) {
			break
		}
	}
	return client.String()
}

func peerAddr(remote string) netip.Addr {
	if ap, err := netip.ParseAddrPort(remote); err == nil {
		return ap.Addr().Unmap()
	}
	a, _ := netip.ParseAddr(remote)
	return a.Unmap()
}

// forwardedFor lists the forwarding chain, client first, from
// X-Forwarded-For or else Forwarded's for= parameters.
func forwardedFor(h http.Header) []string {
	var hops []string
	if xff := h.Values("X-Forwarded-For"); len(xff) > 0 {
		for _, line := range xff {
			for _, hop := range strings.Split(line, ",") {
				hops = append(hops, strings.TrimSpace(hop))
			}
		}
		return hops
	}
	if fwd := h.Values("Forwarded"); len(fwd) > 0 {
		for _, line := range fwd {
			for _, elem := range strings.Split(line, ",") {
				found := false
				for _, pair := range strings.Split(elem, ";") {
					k, v, ok := strings.Cut(strings.TrimSpace(pair), "=")
					if ok && strings.EqualFold(k, "for") {
						hops = append(hops, strings.Trim(v, `"`))
						found = true
					}
				}
				if !found {
					hops = append(hops, "")
				}
			}
		}
	}
	return hops
}

// parseHop reads one hop: an address, with an optional port, with IPv6 in
// brackets when it has a port (as Forwarded requires).
func parseHop(s string) netip.Addr {
	if a, err := netip.ParseAddr(s); err == nil {
		return a
	}
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap.Addr()
	}
	if host, _, err := net.SplitHostPort(s); err == nil {
		a, _ := netip.ParseAddr(strings.Trim(host, "[]"))
		return a
	}
	a, _ := netip.ParseAddr(strings.Trim(s, "[]"))
	return a
}
