package secret_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/svckit/svc/secret"
)

func TestURLMasksOnlyCredentials(t *testing.T) {
	cases := []struct{ in, want string }{
		{"https://user:pa55w0rd@collector.example:4318/v1/metrics", "https://***@collector.example:4318/v1/metrics"},
		{"https://tok3n@collector.example/", "https://***@collector.example/"},
		{"http://collector.example:4318", "http://collector.example:4318"},
		{"https://collector.example/p?api_key=pa55w0rd", "https://collector.example/p?***"},
		{"https://collector.example/p?", "https://collector.example/p?***"},
		{"https://collector.example/p#tok3n", "https://collector.example/p#***"},
		{"https://user:pa55w0rd@collector.example/p?k=tok3n#tok3n", "https://***@collector.example/p?***#***"},
		{"redis://:pa55w0rd@127.0.0.1:6379/0", "redis://***@127.0.0.1:6379/0"},
		{"", ""},
		{"https://us er:pa55w0rd@bad host/", "***"},
		{"user:pa55w0rd@host", "***"},
	}
	for _, c := range cases {
		u := secret.URL(c.in)
		if got := u.String(); got != c.want {
			t.Errorf("String(%q) = %q, want %q", c.in, got, c.want)
		}
		if u.Value() != c.in {
			t.Errorf("Value() = %q", u.Value())
		}
		for name, p := range printers() {
			if name == "zap.Stringer" && c.in == "" {
				continue
			}
			out := p(u)
			if strings.Contains(out, "pa55w0rd") || strings.Contains(out, "tok3n") {
				t.Errorf("%s leaked credentials of %q: %s", name, c.in, out)
			}
		}
	}
}

func TestURLExactForms(t *testing.T) {
	u := secret.URL("https://u:p@h.example/x")
	if got := fmt.Sprintf("%#v", u); got != `secret.URL("https://***@h.example/x")` {
		t.Errorf("%%#v = %s", got)
	}
	if got := fmt.Sprintf("%q", u); got != `"https://***@h.example/x"` {
		t.Errorf("%%q = %s", got)
	}
	b, _ := json.Marshal(u)
	if string(b) != `"https://***@h.example/x"` {
		t.Errorf("json = %s", b)
	}
}

func TestParseURL(t *testing.T) {
	if u, err := secret.ParseURL("https://u:p@h.example/x"); err != nil || u.Value() != "https://u:p@h.example/x" {
		t.Fatalf("ParseURL: %v %q", err, u.Value())
	}
	for _, bad := range []string{"no-scheme.example", "https://us er:s3cr3t@h ost/", "/relative", "https://"} {
		_, err := secret.ParseURL(bad)
		if !errors.Is(err, secret.ErrInvalidURL) {
			t.Errorf("ParseURL(%q) err = %v", bad, err)
		}
		if err != nil && strings.Contains(err.Error(), "s3cr3t") {
			t.Errorf("error repeats input: %v", err)
		}
	}
}

func FuzzURLNeverShowsPassword(f *testing.F) {
	f.Add("https://user:PASSWORD@host/p")
	f.Add("http://PASSWORD@h")
	f.Add("#00://000000@")
	f.Add("https://h/p?key=PASSWORD#PASSWORD")
	f.Fuzz(func(t *testing.T, raw string) {
		out := secret.URL(raw).String()
		if out == secret.Mask || out == "" {
			return
		}
		// The printed form, read back as a URL, carries no credentials
		// other than the mask itself.
		p, err := url.Parse(out)
		if err != nil {
			t.Fatalf("printed form %q of %q does not parse: %v", out, raw, err)
		}
		if _, hasPass := p.User.Password(); p.User != nil && (p.User.Username() != secret.Mask || hasPass) {
			t.Fatalf("printed credentials %q of %q", p.User.String(), raw)
		}
		if (p.RawQuery != "" && p.RawQuery != secret.Mask) || (p.Fragment != "" && p.Fragment != secret.Mask) {
			t.Fatalf("printed query %q or fragment %q of %q", p.RawQuery, p.Fragment, raw)
		}
	})
}
