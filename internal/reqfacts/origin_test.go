package reqfacts

import (
	"crypto/tls"
	"net/http/httptest"
	"testing"
)

func TestClientOrigin(t *testing.T) {
	proxies, err := ParseProxies([]string{"10.0.0.0/8"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, peer   string
		tls          bool
		header       map[string][]string
		scheme, host string
	}{
		{name: "direct", peer: "192.0.2.1:5", scheme: "http", host: "api.example"},
		{name: "direct TLS", peer: "192.0.2.1:5", tls: true, scheme: "https", host: "api.example"},
		{name: "untrusted peer's headers ignored", peer: "192.0.2.1:5",
			header: map[string][]string{"X-Forwarded-Proto": {"https"}, "X-Forwarded-Host": {"evil.example"}, "Forwarded": {"proto=https;host=evil.example"}},
			scheme: "http", host: "api.example"},
		{name: "proxy X-Forwarded", peer: "10.1.2.3:5",
			header: map[string][]string{"X-Forwarded-Proto": {"https"}, "X-Forwarded-Host": {"public.example"}},
			scheme: "https", host: "public.example"},
		{name: "proxy's own value is the last one", peer: "10.1.2.3:5",
			header: map[string][]string{"X-Forwarded-Proto": {"http, https"}, "X-Forwarded-Host": {"evil.example", "public.example"}},
			scheme: "https", host: "public.example"},
		{name: "proxy Forwarded, last element", peer: "10.1.2.3:5",
			header: map[string][]string{"Forwarded": {`for=192.0.2.9;proto=http;host=evil.example, for=192.0.2.1;proto=https;host="public.example:8443"`}},
			scheme: "https", host: "public.example:8443"},
		{name: "X-Forwarded wins over Forwarded", peer: "10.1.2.3:5",
			header: map[string][]string{"X-Forwarded-Proto": {"https"}, "Forwarded": {"proto=http"}},
			scheme: "https", host: "api.example"},
		{name: "malformed Forwarded ignored", peer: "10.1.2.3:5",
			header: map[string][]string{"Forwarded": {`proto=https;host=x y`}},
			scheme: "http", host: "api.example"},
		{name: "unknown scheme and bad host not believed", peer: "10.1.2.3:5",
			header: map[string][]string{"X-Forwarded-Proto": {"javascript"}, "X-Forwarded-Host": {"a/b@c"}},
			scheme: "http", host: "api.example"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "http://api.example/x", nil)
			r.RemoteAddr = tc.peer
			if tc.tls {
				r.TLS = &tls.ConnectionState{}
			}
			for k, v := range tc.header {
				r.Header[k] = v
			}
			scheme, host := proxies.ClientOrigin(r)
			if scheme != tc.scheme || host != tc.host {
				t.Fatalf("got %s://%s, want %s://%s", scheme, host, tc.scheme, tc.host)
			}
			// Without a State no proxy is believed.
			if s, h := ClientOrigin(r); tc.tls && s != "https" || !tc.tls && s != "http" || h != "api.example" {
				t.Fatalf("without State: %s://%s", s, h)
			}
		})
	}
}

func TestFromProxy(t *testing.T) {
	proxies, err := ParseProxies([]string{"10.0.0.0/8", "fd00::/8"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		peer string
		want bool
	}{
		{"10.1.2.3:5", true},
		{"[::ffff:10.1.2.3]:5", true},
		{"[fd00::1]:5", true},
		{"192.0.2.1:5", false},
		{"@", false}, // a Unix socket
	} {
		r := httptest.NewRequest("GET", "http://api.example/x", nil)
		r.RemoteAddr = tc.peer
		if got := proxies.FromProxy(r); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.peer, got, tc.want)
		}
		if Proxies(nil).FromProxy(r) || FromProxy(r) {
			t.Errorf("%s: trusted with no proxies", tc.peer)
		}
		s := &State{}
		s.SetProxies(&proxies)
		if got := FromProxy(r.WithContext(With(r.Context(), s))); got != tc.want {
			t.Errorf("%s by the State: %v, want %v", tc.peer, got, tc.want)
		}
	}
}
