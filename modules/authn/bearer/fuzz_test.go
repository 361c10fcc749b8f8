package bearer

import (
	"bytes"
	"context"
	"crypto"
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/go-jose/go-jose/v4"

	"github.com/svckit/svc/modules/authn/internal/jsonscan"
)

func fuzzSeeds(f *testing.F) {
	k := keys(f)
	seeds := []string{
		"", ".", "..", "....", "a.b.c", "e30.e30.", "e30.e30.e30",
		"eyJhbGciOiJub25lIn0.e30.",
		rawSign(f, "ES256", k.p256, `{"alg":"ES256"}`, payloadOf(f, nil)),
		rawSign(f, "ES256", k.p256, `{"alg":"ES256","kid":"x","crit":["b64"],"b64":false}`, `{"exp":1}`),
		rawSign(f, "RS256", k.rsa, `{"alg":"RS256"}`, `{"a":{"b":[1,2,{"c":"\u0000"}]}}`),
		rawSign(f, "EdDSA", k.ed, `{"alg":"EdDSA","alg":"none"}`, `{}`),
		"eyJhbGciOiJSU0EtT0FFUCIsImVuYyI6IkEyNTZHQ00ifQ.a2V5.aXY.Y2lwaGVy.dGFn",
		strings.Repeat("A", 100) + "." + strings.Repeat("B", 100) + "." + strings.Repeat("C", 100),
	}
	for _, s := range seeds {
		f.Add(s)
	}
}

// FuzzPreparse: the pre-parser never panics, and whatever it accepts is a
// three-segment token whose signing input is a prefix of it.
func FuzzPreparse(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, token string) {
		pt, terr := preparse(token, defaultMaxTokenSize, allAlgs())
		if terr != nil {
			if pt.payload != nil || pt.sig != nil {
				t.Fatalf("refusal %v came with a parse", terr)
			}
			if terr.Reason == "" || strings.Contains(terr.Error(), token) && len(token) > 16 {
				t.Fatalf("bad refusal %v", terr)
			}
			return
		}
		if strings.Count(token, ".") != 2 || !strings.HasPrefix(token, pt.signingInput+".") {
			t.Fatalf("accepted %q", token)
		}
		if pt.payload == nil || len(pt.sig) == 0 {
			t.Fatalf("accepted %q without payload or signature", token)
		}
	})
}

// FuzzVerify: Verify never panics on any input, and a token it accepts is
// also accepted by go-jose with the same key (a differential check: our
// own signature path must never be more permissive than the library).
func FuzzVerify(f *testing.F) {
	fuzzSeeds(f)
	k := keys(f)
	valid := rawSign(f, "ES256", k.p256, `{"alg":"ES256"}`, payloadOf(f, nil))
	f.Add(valid)
	f.Add(valid[:len(valid)-1] + "B")
	now := testNow
	v := KeySet(testIssuer, testAudience, []crypto.PublicKey{&k.p256.PublicKey, &k.rsa.PublicKey, k.ed.Public()},
		Clock(func() time.Time { return now }), CacheBytes(0))
	f.Fuzz(func(t *testing.T, token string) {
		p, err := v.Verify(context.Background(), token)
		if err != nil {
			if p.Authenticated {
				t.Fatal("refused but authenticated")
			}
			return
		}
		jws, perr := jose.ParseSignedCompact(token, []jose.SignatureAlgorithm{jose.ES256, jose.RS256, jose.PS256, jose.EdDSA,
			jose.RS384, jose.RS512, jose.PS384, jose.PS512, jose.ES384, jose.ES512})
		if perr != nil {
			t.Fatalf("accepted a token go-jose cannot parse: %v", perr)
		}
		for _, key := range []any{&k.p256.PublicKey, &k.rsa.PublicKey, k.ed.Public()} {
			if _, verr := jws.Verify(key); verr == nil {
				return
			}
		}
		t.Fatal("accepted a token go-jose does not verify")
	})
}

// FuzzSplitObject: on any valid UTF-8 JSON text, splitObject agrees with
// encoding/json: same members and values for an object with unique names,
// errDuplicate exactly when names repeat, and a refusal for anything but
// an object.
func FuzzSplitObject(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":1}`, `{"a":{"b":[1,"}"]},"c":"\""}`, `{"a":1,"a":2}`, `{"a":1,"\u0061":2}`, `[]`, `"s"`, ` {"x" : [ ] } `} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) || !utf8.Valid(data) {
			return
		}
		got, err := splitObject(data)
		var want map[string]json.RawMessage
		if json.Unmarshal(data, &want) != nil || want == nil {
			if err == nil {
				t.Fatalf("split a non-object %q", data)
			}
			return
		}
		members, _ := jsonscan.Members(data, nil, nil)
		dup := len(members) != len(want)
		if dup != (err == errDuplicate) {
			t.Fatalf("duplicates %v but err %v on %q", dup, err, data)
		}
		if err != nil {
			return
		}
		if len(got) != len(want) {
			t.Fatalf("%d members, want %d", len(got), len(want))
		}
		for k, v := range want {
			if !bytes.Equal(got[k], v) {
				t.Fatalf("member %q = %q, want %q", k, got[k], v)
			}
		}
	})
}

// FuzzSplitPayload: the registered claims picked out during the split are
// the ones a lookup in the map finds.
func FuzzSplitPayload(f *testing.F) {
	for _, s := range []string{`{}`, `{"iss":"i","sub":"s","aud":["a"],"exp":1,"nbf":2,"iat":3,"jti":"j","scope":"a b","scp":["c"],"x":{}}`, `{"exp":1,"exp":2}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !utf8.Valid(data) {
			return
		}
		obj, reg, err := splitPayload(data, nil)
		if err != nil {
			return
		}
		names := [...]string{"iss", "sub", "jti", "aud", "exp", "nbf", "iat", "scope", "scp"}
		picked := [...]jsonscan.Member{reg.iss, reg.sub, reg.jti, reg.aud, reg.exp, reg.nbf, reg.iat, reg.scope, reg.scp}
		for i, name := range names {
			v, present := obj[name]
			if present != (picked[i].Value != nil) || !bytes.Equal(v, picked[i].Value) || (present && picked[i].Name != name) {
				t.Fatalf("splitPayload(%q): %s picked as %q, the map has %q", data, name, picked[i].Value, v)
			}
		}
	})
}

// FuzzIssuersRoute: routing a token to its issuer never panics, and picks
// a verifier only for a token of the right shape whose payload holds
// exactly one string iss naming that verifier's issuer, as
// encoding/json reads it.
func FuzzIssuersRoute(f *testing.F) {
	fuzzSeeds(f)
	for _, p := range []string{`{"iss":"https://a.example"}`, `{"iss":"https://b.example","iss":"https://a.example"}`,
		`{"iss":"https:\/\/a.example"}`, `{"iss":["https://a.example"]}`, `{"iss":null}`, `{"iss":"https://c.example"}`} {
		f.Add(b64url(`{"alg":"ES256"}`) + "." + b64url(p) + ".c2ln")
	}
	k := keys(f)
	a := KeySet("https://a.example", "api", []crypto.PublicKey{k.p256.Public()})
	b := KeySet("https://b.example", "api", []crypto.PublicKey{k.rsa.Public()})
	set := Issuers(a, b).(*issuerSet)
	if set.err != nil {
		f.Fatal(set.err)
	}
	f.Fuzz(func(t *testing.T, token string) {
		v, err := set.route(token)
		if err != nil {
			if v != nil {
				t.Fatalf("a verifier with the refusal %v", err)
			}
			if _, ok := err.(*TokenError); !ok {
				t.Fatalf("refusal %T %v is not a *TokenError", err, err)
			}
			return
		}
		parts := strings.Split(token, ".")
		if len(parts) != 3 {
			t.Fatalf("routed %q", token)
		}
		payload, derr := b64.DecodeString(parts[1])
		if derr != nil {
			t.Fatalf("routed a payload that does not decode: %q", token)
		}
		var claims struct {
			Iss *string `json:"iss"`
		}
		if json.Unmarshal(payload, &claims) != nil || claims.Iss == nil || *claims.Iss != v.cfg.issuer {
			t.Fatalf("routed %q to %s", payload, v.cfg.issuer)
		}
	})
}

func b64url(s string) string { return b64.EncodeToString([]byte(s)) }
