package bearer

import (
	"context"
	"crypto"
	"strings"
	"testing"

	"github.com/go-jose/go-jose/v4"

	"github.com/svckit/svc/modules/authn/internal/jsonscan"
)

func TestPreparseChecksSizeBeforeAnythingElse(t *testing.T) {
	// A token of nothing but dots over the limit is "too large", not
	// "malformed": the length is checked before any counting or splitting.
	_, terr := preparse(strings.Repeat(".", 9000), defaultMaxTokenSize, allAlgs())
	if terr == nil || terr.Reason != ReasonTooLarge {
		t.Fatalf("got %v", terr)
	}
	allocs := testing.AllocsPerRun(10, func() { preparse(strings.Repeat("a.", 1<<16), defaultMaxTokenSize, allAlgs()) })
	if allocs > 2 { // the Repeat above and the error
		t.Fatalf("refusing an oversized token allocated %.0f times", allocs)
	}
}

func TestPreparseKeepsTheSignedBytes(t *testing.T) {
	tok := rawSign(t, "ES256", keys(t).p256, `{"alg":"ES256","kid":"k"}`, `{"a":1}`)
	pt, terr := preparse(tok, defaultMaxTokenSize, allAlgs())
	if terr != nil {
		t.Fatal(terr)
	}
	if pt.signingInput != tok[:strings.LastIndexByte(tok, '.')] || pt.kid != "k" || pt.alg != algES256 || len(pt.sig) != 64 {
		t.Fatalf("parsed %+v", pt)
	}
}

// go-jose accepts RSA-PSS signatures with any salt length (a pitfall this
// verifier closes): the same token is accepted there and refused here.
func TestPitfallPSSSaltLengthIsPinned(t *testing.T) {
	k := keys(t)
	input := enc.EncodeToString([]byte(`{"alg":"PS256","kid":"rsa"}`)) + "." + enc.EncodeToString([]byte(payloadOf(t, nil)))
	tok := input + "." + enc.EncodeToString(rawSignature(t, "PS256", k.rsa, input, pssSaltAuto))

	jws, err := jose.ParseSignedCompact(tok, []jose.SignatureAlgorithm{jose.PS256})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := jws.Verify(&k.rsa.PublicKey); err != nil {
		t.Skipf("go-jose now refuses other salt lengths too (%v); the pitfall is closed upstream", err)
	}
	v := KeySet(testIssuer, testAudience, []crypto.PublicKey{&k.rsa.PublicKey}, Clock(fixedClock()))
	if _, err := v.Verify(context.Background(), tok); reasonOf(t, err) != ReasonSignature {
		t.Fatalf("PSS with the maximum salt accepted: %v", err)
	}
	// The RFC's salt (hash length) verifies.
	good := input + "." + enc.EncodeToString(rawSignature(t, "PS256", k.rsa, input, 0))
	if _, err := v.Verify(context.Background(), good); err != nil {
		t.Fatal(err)
	}
}

// A signature segment with its unused trailing bits set decodes to the same
// bytes; the verifier refuses it so that one token has one spelling (and
// one cache entry).
func TestPitfallNonCanonicalSignatureEncoding(t *testing.T) {
	k := keys(t)
	v := KeySet(testIssuer, testAudience, []crypto.PublicKey{&k.p256.PublicKey}, Clock(fixedClock()))
	tok := rawSign(t, "ES256", k.p256, `{"alg":"ES256"}`, payloadOf(t, nil))
	if _, err := v.Verify(context.Background(), tok); err != nil {
		t.Fatal(err)
	}
	// 64 bytes encode to 86 characters; the last carries 2 unused bits.
	const alpha = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	last := strings.IndexByte(alpha, tok[len(tok)-1])
	twin := tok[:len(tok)-1] + string(alpha[last|1])
	if twin == tok {
		twin = tok[:len(tok)-1] + string(alpha[last|2])
	}
	if _, err := v.Verify(context.Background(), twin); reasonOf(t, err) != ReasonMalformed {
		t.Fatalf("non-canonical twin: %v", err)
	}
}

func TestSplitObject(t *testing.T) {
	cases := []struct {
		in   string
		want map[string]string
		err  error
	}{
		{`{}`, map[string]string{}, nil},
		{` { "a" : 1 , "b":"x,}" ,"c":{"d":[1,{"e":"]"}]},"f":true,"g":null,"h":-1.5e3 } `,
			map[string]string{"a": "1", "b": `"x,}"`, "c": `{"d":[1,{"e":"]"}]}`, "f": "true", "g": "null", "h": "-1.5e3"}, nil},
		{`{"a\"b":"\\","c":[]}`, map[string]string{`a"b`: `"\\"`, "c": "[]"}, nil},
		{`{"alg":1,"alg":2}`, nil, errDuplicate},
		{`{"alg":1,"\u0061lg":2}`, nil, errDuplicate},
		{`[1]`, nil, jsonscan.ErrNotObject},
		{`"x"`, nil, jsonscan.ErrNotObject},
		{`1`, nil, jsonscan.ErrNotObject},
	}
	for _, c := range cases {
		got, err := splitObject([]byte(c.in))
		if err != c.err {
			t.Errorf("%s: err %v, want %v", c.in, err, c.err)
			continue
		}
		if len(got) != len(c.want) {
			t.Errorf("%s: %d members, want %d", c.in, len(got), len(c.want))
		}
		for k, v := range c.want {
			if string(got[k]) != v {
				t.Errorf("%s: %q = %q, want %q", c.in, k, got[k], v)
			}
		}
	}
}
