package authn

import (
	"net/http"
	"testing"
)

func TestClientAddress(t *testing.T) {
	trusted, err := parseTrusted([]string{"10.0.0.0/8", "fd00::/8", "192.0.2.7"})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		peer   string
		xff    []string
		fwd    []string
		want   string
		nobody bool // no trusted proxies configured
	}{
		{name: "direct client", peer: "203.0.113.5:4000", want: "203.0.113.5"},
		{name: "untrusted peer's header is ignored", peer: "203.0.113.5:4000", xff: []string{"1.1.1.1"}, want: "203.0.113.5"},
		{name: "no proxies configured ignores headers", peer: "10.1.1.1:1", xff: []string{"1.1.1.1"}, want: "10.1.1.1", nobody: true},
		{name: "one trusted proxy", peer: "10.1.1.1:1", xff: []string{"198.51.100.9"}, want: "198.51.100.9"},
		{name: "spoofed left entries are skipped", peer: "10.1.1.1:1", xff: []string{"6.6.6.6, 198.51.100.9"}, want: "198.51.100.9"},
		{name: "chain of trusted proxies", peer: "10.1.1.1:1", xff: []string{"198.51.100.9, 10.2.2.2", "10.3.3.3"}, want: "198.51.100.9"},
		{name: "single trusted address", peer: "192.0.2.7:80", xff: []string{"198.51.100.1"}, want: "198.51.100.1"},
		{name: "all hops trusted", peer: "10.1.1.1:1", xff: []string{"10.9.9.9"}, want: "10.9.9.9"},
		{name: "malformed hop stops the walk", peer: "10.1.1.1:1", xff: []string{"198.51.100.9, garbage, 10.2.2.2"}, want: "10.2.2.2"},
		{name: "malformed right-most hop", peer: "10.1.1.1:1", xff: []string{"198.51.100.9, <script>"}, want: "10.1.1.1"},
		{name: "empty header", peer: "10.1.1.1:1", xff: []string{""}, want: "10.1.1.1"},
		{name: "IPv6 peer and client", peer: "[fd00::1]:443", xff: []string{"2001:db8::5"}, want: "2001:db8::5"},
		{name: "IPv6 with port in XFF", peer: "[fd00::1]:443", xff: []string{"[2001:db8::5]:1234"}, want: "2001:db8::5"},
		{name: "IPv4-mapped peer", peer: "[::ffff:10.1.1.1]:1", xff: []string{"198.51.100.9"}, want: "198.51.100.9"},
		// The proxy appended X-Forwarded-For; the client wrote Forwarded.
		{name: "X-Forwarded-For wins", peer: "10.1.1.1:1", xff: []string{"198.51.100.3"}, fwd: []string{`for=6.6.6.6;proto=https`}, want: "198.51.100.3"},
		{name: "Forwarded IPv6 quoted", peer: "10.1.1.1:1", fwd: []string{`for="[2001:db8::7]:4711"`}, want: "2001:db8::7"},
		{name: "Forwarded chain", peer: "10.1.1.1:1", fwd: []string{`for=6.6.6.6, for=198.51.100.3`, `for=10.4.4.4`}, want: "198.51.100.3"},
		{name: "Forwarded obfuscated node", peer: "10.1.1.1:1", fwd: []string{`for=_hidden, for=10.4.4.4`}, want: "10.4.4.4"},
		{name: "Forwarded element without for", peer: "10.1.1.1:1", fwd: []string{`proto=https`}, want: "10.1.1.1"},
		{name: "unparsable peer", peer: "pipe", want: "pipe"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := &http.Request{RemoteAddr: tc.peer, Header: http.Header{}}
			for _, v := range tc.xff {
				r.Header.Add("X-Forwarded-For", v)
			}
			for _, v := range tc.fwd {
				r.Header.Add("Forwarded", v)
			}
			tp := trusted
			if tc.nobody {
				tp = nil
			}
			if got := tp.clientAddress(r); got != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestTrustedRefusals(t *testing.T) {
	for _, c := range []string{"0.0.0.0/0", "::/0", "not-a-cidr", "10.0.0.0/33"} {
		if _, err := parseTrusted([]string{c}); err == nil {
			t.Errorf("Trusted(%q) accepted", c)
		}
	}
}

func FuzzClientAddress(f *testing.F) {
	f.Add("10.1.1.1:1", "1.2.3.4, 10.2.2.2", `for="[::1]:80"`)
	f.Add("[fd00::1]:1", "garbage", "")
	f.Fuzz(func(t *testing.T, peer, xff, fwd string) {
		trusted, _ := parseTrusted([]string{"10.0.0.0/8", "fd00::/8"})
		r := &http.Request{RemoteAddr: peer, Header: http.Header{"X-Forwarded-For": {xff}}}
		if fwd != "" {
			r.Header.Set("Forwarded", fwd)
		}
		_ = trusted.clientAddress(r)
	})
}
