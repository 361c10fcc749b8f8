package bearer

import (
	"context"
	"crypto"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// verifyPayload signs payload (JSON text) with the fixture's P-256 key and
// verifies it.
func verifyPayload(t *testing.T, f *fixture, payload string) (Principal, error) {
	t.Helper()
	tok := rawSign(t, "ES256", f.k.p256, `{"alg":"ES256","kid":"p256"}`, payload)
	return f.v.Verify(context.Background(), tok)
}

// Regression: issue 14 item 1.
// Only the space character separates scopes (RFC 6749 §3.3), and a
// scope-token is %x21 / %x23-5B / %x5D-7E: a token whose scope holds a
// tab, an NBSP or any other byte outside that is refused, in the scope
// string, in an scp string and in an scp array element, rather than split
// into a scope the issuer never wrote.
func TestScopeGrammar(t *testing.T) {
	f := newFixture(t)
	cases := []struct {
		name  string
		scope string
		want  []string // nil: refused as invalid-claims
	}{
		{"one scope", "files:read", []string{"files:read"}},
		{"two scopes", "files:read admin", []string{"admin", "files:read"}},
		{"every allowed punctuation", "!#$%&'()*+,-./:;<=>?@[]^_`{|}~", []string{"!#$%&'()*+,-./:;<=>?@[]^_`{|}~"}},
		{"NBSP", "files:read\u00a0admin", nil},
		{"tab", "files:read\tadmin", nil},
		{"newline", "files:read\nadmin", nil},
		{"carriage return", "files:read\radmin", nil},
		{"vertical tab", "files:read\vadmin", nil},
		{"form feed", "files:read\fadmin", nil},
		{"NEL", "files:read\u0085admin", nil},
		{"ideographic space", "files:read\u3000admin", nil},
		{"line separator", "files:read\u2028admin", nil},
		{"em space", "files:read\u2003admin", nil},
		{"zero-width space", "files:read\u200badmin", nil},
		{"double quote", `files:read"admin`, nil},
		{"backslash", `files:read\admin`, nil},
		{"DEL", "files:read\x7fadmin", nil},
		{"NUL", "files:read\x00admin", nil},
		{"non-ASCII letter", "fichiers:lire:é", nil},
		{"lone NBSP", "\u00a0", nil},
	}
	for _, c := range cases {
		for _, form := range []string{"scope", "scp string", "scp array"} {
			t.Run(c.name+"/"+form, func(t *testing.T) {
				payload := payloadOf(t, func(m map[string]any) {
					delete(m, "scope")
					switch form {
					case "scope":
						m["scope"] = c.scope
					case "scp string":
						m["scp"] = c.scope
					case "scp array":
						// The array form: each element must be one
						// scope-token, so the two-scope case is refused too.
						m["scp"] = []string{c.scope}
					}
				})
				want := c.want
				if form == "scp array" && strings.Contains(c.scope, " ") {
					want = nil
				}
				p, err := verifyPayload(t, f, payload)
				if want == nil {
					if err == nil {
						t.Fatalf("accepted with scopes %v", p.Scopes.List())
					}
					if got := reasonOf(t, err); got != ReasonInvalidClaims {
						t.Fatalf("reason = %s, want invalid-claims (%v)", got, err)
					}
					if !errors.Is(err, errScopeToken) {
						t.Fatalf("error %v does not say which rule", err)
					}
					if p.Authenticated || p.Scopes.Has("admin") {
						t.Fatalf("refusal returned %+v", p)
					}
					return
				}
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				if got := p.Scopes.List(); !slices.Equal(got, want) {
					t.Fatalf("scopes = %v, want %v", got, want)
				}
			})
		}
	}
}

// Regression: issue 14 item 1.
// The spacing the strict grammar refuses (leading, trailing, doubled
// spaces) is tolerated in a scope string, as docs/authn.md says: empty tokens
// grant nothing. An empty scp array element is not a scope-token.
func TestScopeSpacing(t *testing.T) {
	cases := []struct {
		name string
		raw  map[string]json.RawMessage
		want []string
		err  error
	}{
		{"leading and trailing spaces", map[string]json.RawMessage{"scope": json.RawMessage(`"  a b  "`)}, []string{"a", "b"}, nil},
		{"doubled space", map[string]json.RawMessage{"scope": json.RawMessage(`"a  b"`)}, []string{"a", "b"}, nil},
		{"only spaces", map[string]json.RawMessage{"scope": json.RawMessage(`"   "`)}, []string{}, nil},
		{"escaped space", map[string]json.RawMessage{"scope": json.RawMessage(`"a\u0020b"`)}, []string{"a", "b"}, nil},
		{"escaped NBSP", map[string]json.RawMessage{"scope": json.RawMessage(`"a\u00a0b"`)}, nil, errScopeToken},
		{"escaped tab", map[string]json.RawMessage{"scp": json.RawMessage(`"a\tb"`)}, nil, errScopeToken},
		{"scp empty element", map[string]json.RawMessage{"scp": json.RawMessage(`["a",""]`)}, nil, errScopeEmpty},
		{"scp only an empty element", map[string]json.RawMessage{"scp": json.RawMessage(`[""]`)}, nil, errScopeEmpty},
		{"scp element with a space", map[string]json.RawMessage{"scp": json.RawMessage(`["a b"]`)}, nil, errScopeToken},
		{"scp element with an escaped tab", map[string]json.RawMessage{"scp": json.RawMessage(`["a\tb"]`)}, nil, errScopeToken},
		{"scp empty array", map[string]json.RawMessage{"scp": json.RawMessage(`[]`)}, []string{}, nil},
		{"scp array with spaces around", map[string]json.RawMessage{"scp": json.RawMessage(` [ "a" , "b" ] `)}, []string{"a", "b"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := readScopes(c.raw)
			if !errors.Is(err, c.err) {
				t.Fatalf("err = %v, want %v", err, c.err)
			}
			if err == nil && !slices.Equal(s.List(), c.want) {
				t.Fatalf("scopes = %v, want %v", s.List(), c.want)
			}
		})
	}
}

// Regression: issue 25 item 9.
// A token with `scp: [""]` is refused as invalid-claims saying the scope is
// empty, not that it holds a forbidden byte.
func TestEmptyScpElementIsRefusedAsEmpty(t *testing.T) {
	k := keys(t)
	v := KeySet(testIssuer, testAudience, []crypto.PublicKey{&k.p256.PublicKey}, Clock(fixedClock()))
	c := validClaims()
	delete(c, "scope")
	c["scp"] = []string{""}
	_, err := v.Verify(context.Background(), joseSign(t, jose.ES256, k.p256, "", c))
	if r := reasonOf(t, err); r != ReasonInvalidClaims || !strings.Contains(err.Error(), "empty scope") || strings.Contains(err.Error(), "byte") {
		t.Fatalf("scp [\"\"]: %s: %v", r, err)
	}
}

// Regression: issue 14 item 4.
// aud and scp arrays are arrays of strings (RFC 7519 §4.1.3): any other
// element refuses the token, where encoding/json read null as "".
func TestClaimArraysRefuseNonStrings(t *testing.T) {
	f := newFixture(t)
	elements := []struct {
		name string
		json string
	}{
		{"null", `null`},
		{"number", `1`},
		{"zero", `0`},
		{"true", `true`},
		{"false", `false`},
		{"object", `{}`},
		{"object with a string", `{"a":"b"}`},
		{"empty array", `[]`},
		{"nested array", `["read"]`},
	}
	for _, claim := range []string{"aud", "scp"} {
		for _, e := range elements {
			for _, at := range []string{"first", "last"} {
				t.Run(claim+"/"+e.name+"/"+at, func(t *testing.T) {
					arr := `["` + testAudience + `",` + e.json + `]`
					if claim == "scp" {
						arr = `["read",` + e.json + `]`
					}
					if at == "first" {
						arr = `[` + e.json + `,"` + testAudience + `"]`
						if claim == "scp" {
							arr = `[` + e.json + `,"read"]`
						}
					}
					payload := payloadOf(t, func(m map[string]any) { delete(m, "scope") })
					if claim == "scp" {
						payload = payload[:len(payload)-1] + `,"scp":` + arr + `}`
					} else {
						payload = strings.Replace(payload, `"aud":"`+testAudience+`"`, `"aud":`+arr, 1)
					}
					p, err := verifyPayload(t, f, payload)
					if err == nil {
						t.Fatalf("accepted %s as %+v", arr, p)
					}
					if got := reasonOf(t, err); got != ReasonInvalidClaims {
						t.Fatalf("reason = %s, want invalid-claims (%v)", got, err)
					}
					want := errAudShape
					if claim == "scp" {
						want = errScopeShape
					}
					if !errors.Is(err, want) {
						t.Fatalf("error %v, want %v", err, want)
					}
				})
			}
		}
	}
	// The same arrays with string elements only are accepted.
	payload := payloadOf(t, func(m map[string]any) {
		delete(m, "scope")
		m["aud"] = []string{"https://other.example", testAudience}
		m["scp"] = []string{"read", "write"}
	})
	p, err := verifyPayload(t, f, payload)
	if err != nil {
		t.Fatalf("string arrays refused: %v", err)
	}
	if !slices.Equal(p.Claims.Audience, []string{"https://other.example", testAudience}) || !slices.Equal(p.Scopes.List(), []string{"read", "write"}) {
		t.Fatalf("read aud %v, scopes %v", p.Claims.Audience, p.Scopes.List())
	}
}

// referenceScopes is the scope rule written as plainly as possible:
// split at every space, drop the empty pieces, refuse a piece with a byte
// outside %x21 / %x23-5B / %x5D-7E.
func referenceScopes(s string) ([]string, bool) {
	var out []string
	for _, tok := range strings.Split(s, " ") {
		if tok == "" {
			continue
		}
		for _, r := range []byte(tok) {
			if r < 0x21 || r > 0x7e || r == '"' || r == '\\' {
				return nil, false
			}
		}
		out = append(out, tok)
	}
	return out, true
}

// FuzzAddScopes: addScopes agrees with referenceScopes on any string.
func FuzzAddScopes(f *testing.F) {
	for _, s := range []string{"", " ", "a b", "  a  b ", "a\u00a0b", "a\tb", "a\"b", "a\\b", "a\x7fb", "é", "\u3000", "!~"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := addScopes(nil, s)
		want, wantOK := referenceScopes(s)
		if ok != wantOK {
			t.Fatalf("%q: ok = %v, reference says %v", s, ok, wantOK)
		}
		if !ok {
			return
		}
		if len(got) != len(NewScopes(want...)) || !got.Has(want...) {
			t.Fatalf("%q: split into %v, reference %v", s, got.List(), want)
		}
	})
}

// The whole-seconds fast path reads the same time ParseFloat does, and
// leaves everything else to it.
func TestNumericDateWholeSeconds(t *testing.T) {
	for _, v := range []string{"0", "1", "1700000000", "253402300799", "253402300800", "999999999999", "1000000000000",
		"1700000000.5", "1.7e9", "-0", "-1", "12345678901234567890"} {
		got, err := numericDate(json.RawMessage(v))
		var f float64
		if jerr := json.Unmarshal([]byte(v), &f); jerr != nil {
			t.Fatal(jerr)
		}
		switch {
		case f < 0 || f > maxNumericDate:
			if err == nil {
				t.Errorf("%s: read %v, want a refusal", v, got)
			}
		case err != nil:
			t.Errorf("%s: %v", v, err)
		case got.Unix() != int64(f) || got.Location().String() != "UTC":
			t.Errorf("%s: read %v", v, got)
		}
	}
}

// Every refusal names what differed, as the token has it and as the
// verifier wanted it.
func TestRefusalsNameWhatDiffered(t *testing.T) {
	k := keys(t)
	v := KeySet(testIssuer, testAudience, []crypto.PublicKey{&k.p256.PublicKey}, Clock(fixedClock()), Algorithms("ES256", "RS256"))
	with := func(name string, value any) string {
		c := validClaims()
		c[name] = value
		return joseSign(t, jose.ES256, k.p256, "", c)
	}
	cases := []struct {
		name, token string
		want        []string
	}{
		{"issuer", with("iss", "https://evil.example"), []string{`iss "https://evil.example"`, `want "` + testIssuer + `"`}},
		{"audience", with("aud", []string{"a", "b"}), []string{`aud "a b"`, `want "` + testAudience + `"`}},
		{"expired", with("exp", testNow.Add(-time.Hour).Unix()), []string{"exp " + testNow.Add(-time.Hour).Format(time.RFC3339), "leeway 30s"}},
		{"not before", with("nbf", testNow.Add(time.Hour).Unix()), []string{"nbf " + testNow.Add(time.Hour).Format(time.RFC3339)}},
		{"algorithm", joseSign(t, jose.ES384, k.p384, "", validClaims()), []string{`"ES384" is not among the accepted`}},
		{"key type", joseSign(t, jose.RS256, k.rsa, "", validClaims()), []string{"alg RS256"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := v.Verify(context.Background(), c.token)
			if err == nil {
				t.Fatal("accepted")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%v: does not say %s", err, w)
				}
			}
		})
	}
}
