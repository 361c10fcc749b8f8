package authn

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/svckit/svc/modules/authn/bearer"
)

// FuzzReadCredential: whatever the Authorization header and query hold, the
// parser never panics, returns a token only when it is a b64token, and
// refuses only with the kinds the spec names.
func FuzzReadCredential(f *testing.F) {
	for _, seed := range []struct{ auth, query string }{
		{"Bearer abc.def.ghi", ""}, {"bearer x", "access_token=y"}, {"Basic YTpi", ""}, {"Bearer", ""},
		{"Bearer a b", ""}, {"Bearer ====", ""}, {"Bearer a==", ""}, {"  Bearer   t  ", ""}, {"Bearer \xff", ""},
		{"", "access_token=x"}, {"Bearer a,Bearer b", ""},
	} {
		f.Add(seed.auth, seed.query)
	}
	f.Fuzz(func(t *testing.T, auth, query string) {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.URL.RawQuery = query
		r.Header.Set("Authorization", auth)
		token, ref := readCredential(r)
		if ref != nil {
			if token != "" {
				t.Fatal("a refusal with a token")
			}
			switch ref.Kind {
			case KindAmbiguousCredentials:
			case KindTokenRejected:
				if ref.Reason != bearer.ReasonMalformed {
					t.Fatalf("reason %q", ref.Reason)
				}
			default:
				t.Fatalf("kind %q", ref.Kind)
			}
			return
		}
		if token != "" && !strings.Contains(auth, token) {
			t.Fatalf("token %q not taken from the header", token)
		}
	})
}

func FuzzExcludePatterns(f *testing.F) {
	for _, s := range []string{"/healthz", "/docs/*", "*", "/*", "/a*", "/{x}", ""} {
		f.Add(s, "/docs/x")
	}
	f.Fuzz(func(t *testing.T, pattern, path string) {
		set, err := newExcludeSet([]string{pattern})
		if err != nil {
			return
		}
		if set.Match("/") && pattern != "/" {
			t.Fatalf("pattern %q excludes the root", pattern)
		}
		_ = set.Match(path)
		_ = set.matchPattern(path)
	})
}
