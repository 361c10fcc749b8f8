package reqfacts

import (
	"net/http"
	"strings"
)

// ClientOrigin returns the scheme and host r was sent to by the client:
// what the nearest proxy says when the peer is one of t, else what the
// connection says (https with TLS, else http; the Host header).
//
// The nearest proxy is believed, never a value it passed on unread: its
// last X-Forwarded-Proto and X-Forwarded-Host values (each read alone,
// so a proxy may send one and not the other), else the proto= and host=
// of the last RFC 7239 Forwarded element. A proxy behind another must
// therefore pass on what the outermost one saw (nginx's
// proxy_set_header, Envoy's default). A value a proxy gives that is not
// http or https, or a host with a byte no host holds, is not believed:
// the connection's own is used.
func (t Proxies) ClientOrigin(r *http.Request) (scheme, host string) {
	scheme, host = "http", r.Host
	if r.TLS != nil {
		scheme = "https"
	}
	if !t.FromProxy(r) {
		return scheme, host
	}
	proto, fhost := lastValue(r.Header.Values("X-Forwarded-Proto")), lastValue(r.Header.Values("X-Forwarded-Host"))
	if proto == "" && fhost == "" {
		if e, ok := forwardedLast(r.Header.Values("Forwarded")); ok {
			proto, fhost = e.proto, e.host
		}
	}
	if p := strings.ToLower(proto); p == "http" || p == "https" {
		scheme = p
	}
	if fhost != "" && validHost(fhost) {
		host = fhost
	}
	return scheme, host
}

// ClientOrigin is [Proxies.ClientOrigin] by the app's trusted proxies, as
// the request's State holds them; with no telemetry wrapper outside, no
// forwarding header is believed.
func ClientOrigin(r *http.Request) (scheme, host string) {
	if s := From(r.Context()); s != nil {
		return s.proxies.ClientOrigin(r)
	}
	return Proxies(nil).ClientOrigin(r)
}

// FromProxy reports whether r's peer is one of t: only then is a header
// a proxy sets about the client believed.
func (t Proxies) FromProxy(r *http.Request) bool {
	if len(t) == 0 {
		return false
	}
	_, peer, ok := peerAddr(r.RemoteAddr)
	return ok && t.contains(peer)
}

// FromProxy is [Proxies.FromProxy] by the app's trusted proxies, as the
// request's State holds them; false with no telemetry wrapper outside.
func FromProxy(r *http.Request) bool {
	if s := From(r.Context()); s != nil && s.proxies != nil {
		return s.proxies.FromProxy(r)
	}
	return false
}

// lastValue is the last comma-separated value of the last line, trimmed.
func lastValue(lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	line := lines[len(lines)-1]
	return strings.TrimSpace(line[strings.LastIndexByte(line, ',')+1:])
}

// validHost holds the bytes of a reg-name, an IP literal and a port
// (RFC 3986 §3.2.2), nothing that could end the authority.
func validHost(h string) bool {
	for i := 0; i < len(h); i++ {
		c := h[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte("-._~!$&'()*+,;=:[]%", c) >= 0:
		default:
			return false
		}
	}
	return true
}
