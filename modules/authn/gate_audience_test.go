package authn_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/svckit/svc/modules/authn/authntest"
)

// Regression: issue 34 item 3. A token refused on audience (Keycloak's
// default `aud: account`) left nothing to say which audience came and
// which was expected. The security record, its span event and a log line
// once a minute per issuer now carry the token's aud (at most four values,
// each cut, control and format characters removed) beside the audience
// trusted; the 401 body is what it was.
func TestAudienceRefusalSaysWhichAudienceCameAndWhichWasExpected(t *testing.T) {
	iss := authntest.NewIssuer(t)
	o := observedGate(t, exampleRouter(), iss.Verifier())
	hostile := "x\x1b[2J\u202e" + strings.Repeat("y", 300)
	for _, tc := range []struct {
		name string
		aud  []string
		want string // the record's svc.authn.token_audience, as printed
	}{
		{"keycloak default", []string{"account"}, "[account]"},
		{"none", []string{}, "[]"},
		{"hostile and many", []string{hostile, "a", "b", "c", "d", "e"},
			"[x[2J" + strings.Repeat("y", 60) + "… a b c (+2 more)]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o.logs.TakeAll()
			*o.now = o.now.Add(2 * time.Minute) // past both rate limits
			tok := iss.Token(authntest.Claim("aud", tc.aud))
			got := do(t, o.srv, "GET", "/me", bearerHeader(tok), "")
			if !wantAnswer(t, got, http.StatusUnauthorized, []string{`Bearer error="invalid_token"`}, "audience") {
				return
			}
			// The caller learns nothing of what the token held.
			if got.json["detail"] != "The bearer token did not verify (audience). Get a new token rather than retrying this one." ||
				strings.Contains(got.body, "account") || strings.Contains(got.body, iss.Audience) || strings.Contains(got.body, "yyy") {
				t.Fatalf("401 body %s", got.body)
			}

			recs := o.security()
			if len(recs) != 1 {
				t.Fatalf("%d security records", len(recs))
			}
			f := recs[0].ContextMap()
			if fmt.Sprint(f["svc.authn.token_audience"]) != tc.want || f["svc.authn.expected_audience"] != iss.Audience {
				t.Fatalf("record: token_audience %v, expected_audience %v; want %s and %s", f["svc.authn.token_audience"], f["svc.authn.expected_audience"], tc.want, iss.Audience)
			}
			lines := o.logs.FilterLoggerName("app").FilterMessageSnippet("refused on audience").AllUntimed()
			if len(lines) != 1 {
				t.Fatalf("%d audience log lines, want 1", len(lines))
			}
			lf := lines[0].ContextMap()
			if fmt.Sprint(lf["svc.authn.token_audience"]) != tc.want || lf["svc.authn.expected_audience"] != iss.Audience ||
				!strings.Contains(lines[0].Message, "SVC_AUTHN_AUDIENCE") {
				t.Fatalf("log line %q %v", lines[0].Message, lf)
			}
			for _, e := range o.logs.AllUntimed() {
				text := e.Message + fmt.Sprint(e.ContextMap())
				if strings.ContainsAny(text, "\x1b\u202e") || strings.Contains(text, strings.Repeat("y", 65)) || strings.Contains(text, tok) {
					t.Fatalf("a log holds a control character, an uncut value or the token: %q", text)
				}
			}
		})
	}

	// The span event carries it too.
	var found bool
	for _, s := range o.spans.Ended() {
		for _, ev := range s.Events() {
			for _, a := range ev.Attributes {
				if a.Key == "svc.authn.expected_audience" && a.Value == attribute.StringValue(iss.Audience) {
					found = true
				}
			}
		}
	}
	if !found {
		t.Fatal("no span event names the expected audience")
	}

	// Within the minute, a flood of such tokens writes no further line.
	o.logs.TakeAll()
	for range 5 {
		do(t, o.srv, "GET", "/me", bearerHeader(iss.Token(authntest.Audience("account"))), "")
	}
	if n := o.logs.FilterMessageSnippet("refused on audience").Len(); n != 0 {
		t.Fatalf("%d audience lines within the minute, want 0", n)
	}
}
