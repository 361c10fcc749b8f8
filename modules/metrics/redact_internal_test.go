package metrics

import (
	"encoding/base64"
	"errors"
	"strings"
	"testing"
)

// A collector may echo the Authorization header's base64 part alone; the
// export error must not carry it to the log.
func TestRedactHidesBasicCredentialsInEveryForm(t *testing.T) {
	cfg := Config{Endpoint: "https://collector:4318", BasicAuthUsername: "svc", BasicAuthPassword: "pa55word", Headers: Headers{"x-api-key": "k3ysecret"}}
	b64 := base64.StdEncoding.EncodeToString([]byte("svc:pa55word"))
	err := redact(errors.New("401 for token "+b64+" (password pa55word, key k3ysecret)"), cfg)
	if want := "401 for token *** (password ***, key ***)"; err.Error() != want {
		t.Fatalf("got %q, want %q", err, want)
	}
	for _, s := range []string{b64, "pa55word", "k3ysecret"} {
		if strings.Contains(err.Error(), s) || errors.Unwrap(err) != nil {
			t.Fatalf("%q leaks through %v (or its cause)", s, err)
		}
	}
}
