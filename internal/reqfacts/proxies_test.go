package reqfacts_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/svckit/svc/internal/reqfacts"
)

// proxies are the trusted networks of every row of addressCases that does
// not say none.
var proxies = []string{"10.0.0.0/8", "fd00::/8", "192.0.2.7"}

// addressCase is one request and the caller every part of svc must name.
type addressCase struct {
	name string
	peer string
	xff  []string
	fwd  []string
	none bool // no trusted proxies
	want string
}

// addressCases is the one table of the trusted-proxy rule: the rule itself
// and every part that names a caller are fed it (consumers_test.go).
var addressCases = []addressCase{
	{name: "direct client", peer: "203.0.113.5:4000", want: "203.0.113.5"},
	{name: "direct IPv6 client", peer: "[2001:db8::9]:4000", want: "2001:db8::9"},
	{name: "direct IPv4-mapped client", peer: "[::ffff:203.0.113.7]:4000", want: "203.0.113.7"},
	{name: "untrusted peer's X-Forwarded-For is ignored", peer: "203.0.113.5:4000", xff: []string{"198.51.100.1"}, want: "203.0.113.5"},
	{name: "untrusted peer's Forwarded is ignored", peer: "203.0.113.5:4000", fwd: []string{"for=198.51.100.1"}, want: "203.0.113.5"},
	{name: "no proxies: headers ignored", peer: "10.1.1.1:1", xff: []string{"198.51.100.1"}, none: true, want: "10.1.1.1"},
	{name: "one trusted proxy", peer: "10.1.1.1:1", xff: []string{"198.51.100.9"}, want: "198.51.100.9"},
	{name: "forged left entries are skipped", peer: "10.1.1.1:1", xff: []string{"6.6.6.6, 198.51.100.9"}, want: "198.51.100.9"},
	{name: "chain of trusted proxies over two lines", peer: "10.1.1.1:1", xff: []string{"198.51.100.9, 10.2.2.2", "10.3.3.3"}, want: "198.51.100.9"},
	{name: "single trusted address", peer: "192.0.2.7:80", xff: []string{"198.51.100.1"}, want: "198.51.100.1"},
	{name: "every hop trusted", peer: "10.1.1.1:1", xff: []string{"10.9.9.9"}, want: "10.9.9.9"},
	{name: "entry with a port", peer: "10.1.1.1:1", xff: []string{"203.0.113.7:5555"}, want: "203.0.113.7"},
	{name: "entries with ports through a trusted hop", peer: "10.1.1.1:1", xff: []string{"203.0.113.7:5555, 10.2.2.2:443"}, want: "203.0.113.7"},
	{name: "IPv6 entry", peer: "[fd00::1]:443", xff: []string{"2001:db8::5"}, want: "2001:db8::5"},
	{name: "bracketed IPv6 entry with a port", peer: "[fd00::1]:443", xff: []string{"[2001:db8::5]:1234"}, want: "2001:db8::5"},
	{name: "bracketed IPv6 entry without a port", peer: "10.1.1.1:1", xff: []string{"[2001:db8::5]"}, want: "2001:db8::5"},
	{name: "IPv4-mapped entry is unmapped", peer: "10.1.1.1:1", xff: []string{"::ffff:203.0.113.7"}, want: "203.0.113.7"},
	{name: "IPv4-mapped peer is a trusted proxy", peer: "[::ffff:10.1.1.1]:1", xff: []string{"198.51.100.9"}, want: "198.51.100.9"},
	{name: "IPv4-mapped trusted hop is walked past", peer: "10.1.1.1:1", xff: []string{"198.51.100.9, ::ffff:10.2.2.2"}, want: "198.51.100.9"},
	{name: "malformed hop stops at the last good one", peer: "10.1.1.1:1", xff: []string{"198.51.100.9, garbage, 10.2.2.2"}, want: "10.2.2.2"},
	{name: "malformed right-most hop leaves the peer", peer: "10.1.1.1:1", xff: []string{"198.51.100.9, <script>"}, want: "10.1.1.1"},
	{name: "empty entry stops the walk", peer: "10.1.1.1:1", xff: []string{"198.51.100.9,,10.2.2.2"}, want: "10.2.2.2"},
	{name: "empty header", peer: "10.1.1.1:1", xff: []string{""}, want: "10.1.1.1"},
	{name: "bad port stops the walk", peer: "10.1.1.1:1", xff: []string{"203.0.113.7:99999"}, want: "10.1.1.1"},
	{name: "zone stops the walk", peer: "10.1.1.1:1", xff: []string{"fe80::1%eth0"}, want: "10.1.1.1"},
	{name: "hostname stops the walk", peer: "10.1.1.1:1", xff: []string{"client.example"}, want: "10.1.1.1"},
	// The proxy appended X-Forwarded-For; the client wrote Forwarded.
	{name: "X-Forwarded-For wins over Forwarded", peer: "10.1.1.1:1", xff: []string{"198.51.100.3"}, fwd: []string{"for=6.6.6.6;proto=https"}, want: "198.51.100.3"},
	{name: "Forwarded alone", peer: "10.1.1.1:1", fwd: []string{"for=203.0.113.7"}, want: "203.0.113.7"},
	{name: "Forwarded with a port, quoted", peer: "10.1.1.1:1", fwd: []string{`for="203.0.113.7:5555"`}, want: "203.0.113.7"},
	{name: "Forwarded bracketed IPv6, quoted", peer: "10.1.1.1:1", fwd: []string{`for="[2001:db8::7]:4711"`}, want: "2001:db8::7"},
	{name: "Forwarded parameter names are case-blind", peer: "10.1.1.1:1", fwd: []string{"For=203.0.113.7;Proto=https"}, want: "203.0.113.7"},
	{name: "Forwarded chain over two lines", peer: "10.1.1.1:1", fwd: []string{"for=6.6.6.6, for=198.51.100.3", "for=10.4.4.4"}, want: "198.51.100.3"},
	{name: "Forwarded obfuscated node stops the walk", peer: "10.1.1.1:1", fwd: []string{"for=198.51.100.3, for=_hidden, for=10.4.4.4"}, want: "10.4.4.4"},
	{name: "Forwarded unknown stops the walk", peer: "10.1.1.1:1", fwd: []string{"for=198.51.100.3, for=unknown"}, want: "10.1.1.1"},
	{name: "Forwarded obfuscated port keeps the address", peer: "10.1.1.1:1", fwd: []string{`for="203.0.113.7:_p1"`}, want: "203.0.113.7"},
	{name: "Forwarded element without for", peer: "10.1.1.1:1", fwd: []string{"proto=https"}, want: "10.1.1.1"},
	{name: "Forwarded element with two for", peer: "10.1.1.1:1", fwd: []string{"for=198.51.100.3;for=203.0.113.9"}, want: "10.1.1.1"},
	{name: "Forwarded quoted comma is not a separator", peer: "10.1.1.1:1", fwd: []string{`for=198.51.100.3, for="10.4.4.4";by="a,b"`}, want: "198.51.100.3"},
	{name: "Forwarded unterminated quote", peer: "10.1.1.1:1", fwd: []string{`for=198.51.100.3, for="203.0.113.9`}, want: "10.1.1.1"},
	{name: "Forwarded IPv4-mapped is unmapped", peer: "10.1.1.1:1", fwd: []string{`for="[::ffff:203.0.113.7]"`}, want: "203.0.113.7"},
	{name: "unparsable peer is named as given", peer: "pipe", want: "pipe"},
}

// request builds c's request as a server sees it.
func (c addressCase) request() *http.Request {
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	r.RemoteAddr = c.peer
	for _, v := range c.xff {
		r.Header.Add("X-Forwarded-For", v)
	}
	for _, v := range c.fwd {
		r.Header.Add("Forwarded", v)
	}
	return r
}

func (c addressCase) proxies() []string {
	if c.none {
		return nil
	}
	return proxies
}

func TestClientAddress(t *testing.T) {
	for _, c := range addressCases {
		t.Run(c.name, func(t *testing.T) {
			p, err := reqfacts.ParseProxies(c.proxies())
			if err != nil {
				t.Fatal(err)
			}
			if got := p.ClientAddress(c.request()); got != c.want {
				t.Fatalf("got %q, want %q", got, c.want)
			}
		})
	}
}

// Without a State (no telemetry wrapper outside) the peer is the caller:
// no forwarding header is believed.
func TestClientAddressWithoutAStateIsThePeer(t *testing.T) {
	r := addressCase{peer: "10.1.1.1:1", xff: []string{"198.51.100.9"}}.request()
	if got := reqfacts.ClientAddress(r); got != "10.1.1.1" {
		t.Fatalf("got %q, want the peer", got)
	}
}

// The State works the address out once: every part of one request names
// the same caller.
func TestStateWorksTheAddressOutOnce(t *testing.T) {
	p, err := reqfacts.ParseProxies(proxies)
	if err != nil {
		t.Fatal(err)
	}
	var st reqfacts.State
	st.SetProxies(&p)
	r := addressCase{peer: "10.1.1.1:1", xff: []string{"198.51.100.9"}}.request()
	r = r.WithContext(reqfacts.With(r.Context(), &st))
	if got := reqfacts.ClientAddress(r); got != "198.51.100.9" {
		t.Fatalf("got %q", got)
	}
	r.Header.Set("X-Forwarded-For", "203.0.113.1") // a handler rewriting it later
	if got := reqfacts.ClientAddress(r); got != "198.51.100.9" {
		t.Fatalf("second ask: %q, want the first answer", got)
	}
}

func TestParseProxies(t *testing.T) {
	good := []struct {
		in   []string
		want string
	}{
		{[]string{"10.0.0.0/8"}, "10.0.0.0/8"},
		{[]string{" 10.1.2.3/8 "}, "10.0.0.0/8"},
		{[]string{"192.0.2.7"}, "192.0.2.7/32"},
		{[]string{"fd00::1"}, "fd00::1/128"},
		{[]string{"::ffff:10.0.0.0/104"}, "10.0.0.0/8"},
		{[]string{"", "10.0.0.0/8", " "}, "10.0.0.0/8"},
	}
	for _, g := range good {
		p, err := reqfacts.ParseProxies(g.in)
		if err != nil || len(p) != 1 || p[0].String() != g.want {
			t.Errorf("%q: %v %v, want %s", g.in, p, err, g.want)
		}
	}
	for _, bad := range []string{"0.0.0.0/0", "::/0", "::ffff:0.0.0.0/96", "not-a-cidr", "10.0.0.0/33", "fe80::1%eth0", "proxy.local"} {
		_, err := reqfacts.ParseProxies([]string{"10.0.0.0/8", bad})
		var pe *reqfacts.ProxyError
		if !errors.As(err, &pe) || pe.Entry != bad {
			t.Errorf("%q: %v, want a *ProxyError naming it", bad, err)
		}
	}
}

func FuzzClientAddress(f *testing.F) {
	f.Add("10.1.1.1:1", "1.2.3.4, 10.2.2.2", `for="[::1]:80"`)
	f.Add("[fd00::1]:1", "garbage", "")
	f.Add("10.1.1.1:1", "", `for=1.2.3.4;by="x\"y", for=_a`)
	p, _ := reqfacts.ParseProxies(proxies)
	f.Fuzz(func(t *testing.T, peer, xff, fwd string) {
		r := &http.Request{RemoteAddr: peer, Header: http.Header{}}
		if xff != "" {
			r.Header.Set("X-Forwarded-For", xff)
		}
		if fwd != "" {
			r.Header.Set("Forwarded", fwd)
		}
		got := p.ClientAddress(r)
		// The caller is the peer or an address some header named.
		if got != peer && got == "" {
			t.Fatalf("empty address for %q %q %q", peer, xff, fwd)
		}
	})
}
