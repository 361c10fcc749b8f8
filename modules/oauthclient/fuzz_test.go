package oauthclient_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/svckit/svc/modules/oauthclient"
)

func FuzzInvalidTokenChallenge(f *testing.F) {
	for _, s := range []string{`Bearer error="invalid_token"`, `Basic realm="x", Bearer error=invalid_token`, `Bearer realm="a\"b"`, `"`, `=`, `Bearer error="\`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		got := oauthclient.InvalidTokenChallenge(http.Header{"Www-Authenticate": {v}})
		if got && !strings.Contains(strings.ToLower(v), "bearer") {
			t.Fatalf("%q read as a Bearer challenge", v)
		}
	})
}

func FuzzJWTExpiry(f *testing.F) {
	f.Add(callerJWT(map[string]any{"exp": 1900000000}))
	f.Add(callerJWT(map[string]any{"exp": "soon"}))
	f.Add(callerJWT(map[string]any{"exp": 1e300}))
	f.Add("a.b.c")
	f.Add("..")
	f.Fuzz(func(t *testing.T, tok string) {
		exp, ok := oauthclient.JWTExpiry(tok)
		if ok && (exp.Before(time.Unix(0, 0)) || len(tok) > 16<<10) {
			t.Fatalf("exp %v from %q", exp, tok)
		}
	})
}
