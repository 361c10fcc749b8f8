package authn

import (
	"encoding/json"
	"testing"

	"github.com/svckit/svc/modules/authn/bearer"
)

// acrOf reads the acr claim as JSON would, escapes included, whether or
// not it takes the path without a decoder.
func TestAcrOfReadsTheClaimAsJSONDoes(t *testing.T) {
	for raw, want := range map[string]string{
		`"urn:mfa"`:       "urn:mfa",
		`"urn:\u006dfa"`:  "urn:mfa",
		`"a\"b"`:          `a"b`,
		`"2"`:             "2",
		`""`:              "",
		`2`:               "",
		`null`:            "",
		`["urn:mfa"]`:     "",
		`"`:               "",
		`"\\"`:            `\`,
		`"http://x/a\/b"`: "http://x/a/b",
		`"ünïcode"`:       "ünïcode",
		`"urn:mfa" `:      "urn:mfa",
	} {
		p := bearer.Principal{Claims: &bearer.Claims{Raw: map[string]json.RawMessage{"acr": json.RawMessage(raw)}}}
		if got := acrOf(p); got != want {
			t.Errorf("acrOf(%s) = %q, want %q", raw, got, want)
		}
	}
	if got := acrOf(bearer.Principal{}); got != "" {
		t.Errorf("no claims: %q", got)
	}
}
