package urlshape

import (
	"strings"
	"testing"
)

// Regression: issue 24 item 2 (a trailing colon gave "is not a URL").
func TestParseSaysWhatIsWrong(t *testing.T) {
	for _, c := range []struct{ raw, want string }{
		{"", "is empty"},
		{" https://idp.example", "has spaces around it"},
		{"https://idp.example/\x01", "holds a control character"},
		{"idp.example.com", "has no scheme"},
		{"127.0.0.1:", "has no scheme"},
		{"127.0.0.1:9000", "has no scheme"},
		{"localhost:9000", "has no scheme"},
		{"idp.example.com:443/realms/x", "has no scheme"},
		{"/realms/x", "has no scheme"},
		{"https:idp.example.com", "has no // after https:"},
		{"https//idp.example.com", "has no scheme"},
		{"https://", "has an empty host"},
		{"https:///realms", "has an empty host"},
		{"https://user:s3cret@:443", "has an empty host"},
		{"https://idp.example.com:", "ends its host with a colon and no port"},
		{"https://idp.example.com:port", "has a port that is not a number"},
		{"https://idp.example.com:99999", "has a port outside 1 to 65535"},
		{"https://idp.example.com:0", "has a port outside 1 to 65535"},
		{"https://idp example.com", "has a host holding a character"},
		{"https://[::1", "opens an IPv6 address with ["},
		{"https://idp.example.com/%zz", "holds a %"},
	} {
		u, problem := Parse(c.raw)
		if u != nil || !strings.HasPrefix(problem, c.want) {
			t.Errorf("Parse(%q) = %v, %q; want a problem starting %q", c.raw, u, problem, c.want)
		}
		if strings.Contains(problem, "s3cret") || strings.Contains(problem, "example") {
			t.Errorf("Parse(%q): the problem quotes the URL: %q", c.raw, problem)
		}
	}
	for _, ok := range []string{"https://idp.example.com", "http://127.0.0.1:9000/realms/x", "https://[::1]:8443/", "https://u:p@h.example/?q#f"} {
		if u, problem := Parse(ok); u == nil || problem != "" {
			t.Errorf("Parse(%q) refused: %q", ok, problem)
		}
	}
}

func TestFetchable(t *testing.T) {
	ok := []string{"https://keys.example/jwks", "http://127.0.0.1:8080/jwks", "http://[::1]/k", "http://localhost/k", "https://keys.example:8443/a?b=c"}
	bad := []string{"", "keys.example/jwks", "http://keys.example/jwks", "ftp://keys.example", "https://u:p@keys.example", "https://keys.example/#x", "https:///path", "mailto:a@b", "http://127.0.0.1.evil.example/"}
	for _, u := range ok {
		if err := Fetchable(u); err != nil {
			t.Errorf("%s refused: %v", u, err)
		}
	}
	for _, u := range bad {
		if err := Fetchable(u); err == nil {
			t.Errorf("%s accepted", u)
		}
	}
}
