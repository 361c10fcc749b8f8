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
// trusted proxy. Forwarded (RFC 7239) wins over X-Forwarded-For. A
// malformed entry stops the walk at the last address known good, so callers
// that cannot be told apart share it.
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

// forwardedFor lists the forwarding chain, client first, from Forwarded's
// for= parameters or else X-Forwarded-For.
func forwardedFor(h http.Header) []string {
	var hops []string
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
		return hops
	}
	for _, line := range h.Values("X-Forwarded-For") {
		for _, hop := range strings.Split(line, ",") {
			hops = append(hops, strings.TrimSpace(hop))
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
