package bearer

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"strings"
	"testing"
	"time"
)

// hostile is one named attack on the verifier.
type hostile struct {
	name  string
	token func(t *testing.T, f *fixture) string
	want  Reason
}

func pemOf(t *testing.T, pub any) []byte {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
}

func payloadOf(t testing.TB, edit func(map[string]any)) string {
	c := validClaims()
	if edit != nil {
		edit(c)
	}
	return mustJSON(t, c)
}

// segment replaces segment i of a token.
func segment(tok string, i int, with string) string {
	parts := strings.Split(tok, ".")
	parts[i] = with
	return strings.Join(parts, ".")
}

func hostileTokens() []hostile {
	es := func(header string, edit func(map[string]any)) func(t *testing.T, f *fixture) string {
		return func(t *testing.T, f *fixture) string {
			return rawSign(t, "ES256", f.k.p256, header, payloadOf(t, edit))
		}
	}
	esRaw := func(header, payload string) func(t *testing.T, f *fixture) string {
		return func(t *testing.T, f *fixture) string { return rawSign(t, "ES256", f.k.p256, header, payload) }
	}
	unsigned := func(header string) func(t *testing.T, f *fixture) string {
		return func(t *testing.T, f *fixture) string {
			return enc.EncodeToString([]byte(header)) + "." + enc.EncodeToString([]byte(payloadOf(t, nil))) + "."
		}
	}
	valid := func(t *testing.T, f *fixture) string {
		return rawSign(t, "ES256", f.k.p256, `{"alg":"ES256","kid":"p256"}`, payloadOf(t, nil))
	}
	const h = `{"alg":"ES256","kid":"p256"}`
	return []hostile{
		{"empty token", func(*testing.T, *fixture) string { return "" }, ReasonMalformed},
		{"alg none, no signature", unsigned(`{"alg":"none"}`), ReasonAlgorithm},
		{"alg None", unsigned(`{"alg":"None","kid":"p256"}`), ReasonAlgorithm},
		{"alg NONE", unsigned(`{"alg":"NONE"}`), ReasonAlgorithm},
		{"alg nOnE", unsigned(`{"alg":"nOnE"}`), ReasonAlgorithm},
		{"alg none with a signature", func(t *testing.T, f *fixture) string {
			return segment(valid(t, f), 0, enc.EncodeToString([]byte(`{"alg":"none","kid":"p256"}`)))
		}, ReasonAlgorithm},
		{"HS256 keyed with the RSA public key PEM", func(t *testing.T, f *fixture) string {
			return rawSign(t, "HS256", pemOf(t, &f.k.rsa.PublicKey), `{"alg":"HS256","kid":"rsa"}`, payloadOf(t, nil))
		}, ReasonAlgorithm},
		{"HS256 keyed with the JWK text", func(t *testing.T, f *fixture) string {
			return rawSign(t, "HS256", []byte(jwkJSON(t, &f.k.p256.PublicKey, "p256", "")), `{"alg":"HS256","kid":"p256"}`, payloadOf(t, nil))
		}, ReasonAlgorithm},
		{"HS512", func(t *testing.T, f *fixture) string {
			return rawSign(t, "HS512", []byte("secret"), `{"alg":"HS512"}`, payloadOf(t, nil))
		}, ReasonAlgorithm},
		{"alg lower-case es256", es(`{"alg":"es256","kid":"p256"}`, nil), ReasonAlgorithm},
		{"alg ES256K", es(`{"alg":"ES256K","kid":"p256"}`, nil), ReasonAlgorithm},
		{"alg RS1", es(`{"alg":"RS1","kid":"rsa"}`, nil), ReasonAlgorithm},
		{"alg not a string", es(`{"alg":["ES256"],"kid":"p256"}`, nil), ReasonMalformed},
		{"alg missing", es(`{"kid":"p256"}`, nil), ReasonMalformed},
		{"RS256 header naming an EC key", func(t *testing.T, f *fixture) string {
			return rawSign(t, "RS256", f.k.rsa, `{"alg":"RS256","kid":"p256"}`, payloadOf(t, nil))
		}, ReasonAlgorithm},
		{"EdDSA header naming an RSA key", func(t *testing.T, f *fixture) string {
			return rawSign(t, "EdDSA", f.k.ed, `{"alg":"EdDSA","kid":"rsa"}`, payloadOf(t, nil))
		}, ReasonAlgorithm},
		{"ES256 header naming a P-384 key", func(t *testing.T, f *fixture) string {
			return rawSign(t, "ES256", f.k.p256, `{"alg":"ES256","kid":"p384"}`, payloadOf(t, nil))
		}, ReasonAlgorithm},
		{"ES384 header naming a P-256 key", func(t *testing.T, f *fixture) string {
			return rawSign(t, "ES384", f.k.p384, `{"alg":"ES384","kid":"p256"}`, payloadOf(t, nil))
		}, ReasonAlgorithm},
		{"RS256 against a key that declares PS256", func(t *testing.T, f *fixture) string {
			return rawSign(t, "RS256", f.k.rsa2, `{"alg":"RS256","kid":"rsa-ps"}`, payloadOf(t, nil))
		}, ReasonAlgorithm},
		{"ES256 signed by a P-384 key", func(t *testing.T, f *fixture) string {
			return rawSign(t, "ES384", f.k.p384, h, payloadOf(t, nil))
		}, ReasonSignature},
		{"ES256 signed by another P-256 key", func(t *testing.T, f *fixture) string {
			return rawSign(t, "ES256", f.k.p256b, h, payloadOf(t, nil))
		}, ReasonSignature},
		{"ES256 zero signature (psychic signature)", func(t *testing.T, f *fixture) string {
			return segment(valid(t, f), 2, enc.EncodeToString(make([]byte, 64)))
		}, ReasonSignature},
		{"ES256 signature in ASN.1 form", func(t *testing.T, f *fixture) string {
			tok := valid(t, f)
			sig, _ := enc.DecodeString(strings.Split(tok, ".")[2])
			der := append([]byte{0x30, 0x44, 0x02, 0x20}, sig[:32]...)
			der = append(append(der, 0x02, 0x20), sig[32:]...)
			return segment(tok, 2, enc.EncodeToString(der))
		}, ReasonSignature},
		{"PS256 with the maximum salt length", func(t *testing.T, f *fixture) string {
			input := enc.EncodeToString([]byte(`{"alg":"PS256","kid":"rsa"}`)) + "." + enc.EncodeToString([]byte(payloadOf(t, nil)))
			return input + "." + enc.EncodeToString(rawSignature(t, "PS256", f.k.rsa, input, pssSaltAuto))
		}, ReasonSignature},
		{"PS256 with salt length 20", func(t *testing.T, f *fixture) string {
			input := enc.EncodeToString([]byte(`{"alg":"PS256","kid":"rsa"}`)) + "." + enc.EncodeToString([]byte(payloadOf(t, nil)))
			return input + "." + enc.EncodeToString(rawSignature(t, "PS256", f.k.rsa, input, 20))
		}, ReasonSignature},
		{"signature one byte short", func(t *testing.T, f *fixture) string {
			tok := valid(t, f)
			sig, _ := enc.DecodeString(strings.Split(tok, ".")[2])
			return segment(tok, 2, enc.EncodeToString(sig[:len(sig)-1]))
		}, ReasonSignature},
		{"signature one byte long", func(t *testing.T, f *fixture) string {
			tok := valid(t, f)
			sig, _ := enc.DecodeString(strings.Split(tok, ".")[2])
			return segment(tok, 2, enc.EncodeToString(append(sig, 0)))
		}, ReasonSignature},
		{"signature from another token", func(t *testing.T, f *fixture) string {
			other := rawSign(t, "ES256", f.k.p256, h, payloadOf(t, func(c map[string]any) { c["sub"] = "admin" }))
			return segment(valid(t, f), 2, strings.Split(other, ".")[2])
		}, ReasonSignature},
		{"payload swapped under a valid signature", func(t *testing.T, f *fixture) string {
			return segment(valid(t, f), 1, enc.EncodeToString([]byte(payloadOf(t, func(c map[string]any) { c["sub"] = "admin" }))))
		}, ReasonSignature},
		{"embedded jwk header with the attacker's key and a real kid", func(t *testing.T, f *fixture) string {
			hdr := `{"alg":"ES256","kid":"p256","jwk":` + string(jwkJSON(t, &f.k.p256b.PublicKey, "", "")) + `}`
			return rawSign(t, "ES256", f.k.p256b, hdr, payloadOf(t, nil))
		}, ReasonSignature},
		{"embedded jwk header without kid", func(t *testing.T, f *fixture) string {
			hdr := `{"alg":"ES256","jwk":` + string(jwkJSON(t, &f.k.p256b.PublicKey, "", "")) + `}`
			return rawSign(t, "ES256", f.k.p256b, hdr, payloadOf(t, nil))
		}, ReasonSignature},
		{"x5c header with the attacker's key", es(`{"alg":"ES256","kid":"evil","x5c":["MIIB"]}`, nil), ReasonUnknownKey},
		{"crit naming an unknown extension", es(`{"alg":"ES256","kid":"p256","crit":["exp"],"exp":1}`, nil), ReasonMalformed},
		{"crit empty", es(`{"alg":"ES256","kid":"p256","crit":[]}`, nil), ReasonMalformed},
		{"b64 false (unencoded payload)", func(t *testing.T, f *fixture) string {
			hdr := `{"alg":"ES256","kid":"p256","b64":false,"crit":["b64"]}`
			p := payloadOf(t, nil)
			input := enc.EncodeToString([]byte(hdr)) + "." + p
			return enc.EncodeToString([]byte(hdr)) + "." + enc.EncodeToString([]byte(p)) + "." + enc.EncodeToString(rawSignature(t, "ES256", f.k.p256, input, 0))
		}, ReasonMalformed},
		{"b64 true without crit", es(`{"alg":"ES256","kid":"p256","b64":true}`, nil), ReasonMalformed},
		{"enc header on a JWS", es(`{"alg":"ES256","kid":"p256","enc":"A256GCM"}`, nil), ReasonMalformed},
		{"zip header on a JWS", es(`{"alg":"ES256","kid":"p256","zip":"DEF"}`, nil), ReasonMalformed},
		{"duplicate alg in header (none first)", esRaw(`{"alg":"none","alg":"ES256","kid":"p256"}`, `{}`), ReasonMalformed},
		{"duplicate alg in header (none last)", esRaw(`{"alg":"ES256","kid":"p256","alg":"none"}`, `{}`), ReasonMalformed},
		{"duplicate alg spelled with an escape", esRaw(`{"alg":"ES256","kid":"p256","\u0061lg":"HS256"}`, `{}`), ReasonMalformed},
		{"duplicate kid in header", esRaw(`{"alg":"ES256","kid":"p256","kid":"rsa"}`, `{}`), ReasonMalformed},
		{"duplicate exp in payload", func(t *testing.T, f *fixture) string {
			p := payloadOf(t, nil)
			p = p[:len(p)-1] + `,"exp":99999999999}`
			return rawSign(t, "ES256", f.k.p256, h, p)
		}, ReasonMalformed},
		{"duplicate aud in payload", func(t *testing.T, f *fixture) string {
			p := payloadOf(t, func(c map[string]any) { delete(c, "aud") })
			p = `{"aud":"other",` + p[1:len(p)-1] + `,"aud":"` + testAudience + `"}`
			return rawSign(t, "ES256", f.k.p256, h, p)
		}, ReasonMalformed},
		{"JWE (five segments)", func(*testing.T, *fixture) string {
			return "eyJhbGciOiJSU0EtT0FFUCIsImVuYyI6IkEyNTZHQ00ifQ.a2V5.aXY.Y2lwaGVy.dGFn"
		}, ReasonEncrypted},
		{"one segment", func(*testing.T, *fixture) string { return "eyJhbGciOiJFUzI1NiJ9" }, ReasonMalformed},
		{"two segments", func(t *testing.T, f *fixture) string {
			tok := valid(t, f)
			return tok[:strings.LastIndexByte(tok, '.')]
		}, ReasonMalformed},
		{"four segments", func(t *testing.T, f *fixture) string { return valid(t, f) + ".AAAA" }, ReasonMalformed},
		{"six segments", func(t *testing.T, f *fixture) string { return valid(t, f) + ".A.A.A" }, ReasonMalformed},
		{"only dots", func(*testing.T, *fixture) string { return ".." }, ReasonMalformed},
		{"empty header segment", func(t *testing.T, f *fixture) string { return segment(valid(t, f), 0, "") }, ReasonMalformed},
		{"empty payload segment", func(t *testing.T, f *fixture) string { return segment(valid(t, f), 1, "") }, ReasonMalformed},
		{"padding on the header", func(t *testing.T, f *fixture) string {
			tok := valid(t, f)
			return segment(tok, 0, strings.Split(tok, ".")[0]+"==")
		}, ReasonMalformed},
		{"padding on the signature", func(t *testing.T, f *fixture) string { return valid(t, f) + "=" }, ReasonMalformed},
		{"line break inside the payload", func(t *testing.T, f *fixture) string {
			tok := valid(t, f)
			i := strings.IndexByte(tok, '.') + 10
			return tok[:i] + "\n" + tok[i:]
		}, ReasonMalformed},
		{"carriage return inside the signature", func(t *testing.T, f *fixture) string {
			tok := valid(t, f)
			return tok[:len(tok)-5] + "\r" + tok[len(tok)-5:]
		}, ReasonMalformed},
		{"space inside the header", func(t *testing.T, f *fixture) string {
			tok := valid(t, f)
			return tok[:4] + " " + tok[4:]
		}, ReasonMalformed},
		{"standard base64 alphabet", func(t *testing.T, f *fixture) string {
			tok := valid(t, f)
			return strings.NewReplacer("-", "+", "_", "/").Replace(tok) + "+/"
		}, ReasonMalformed},
		{"non-canonical base64 (trailing bits set)", func(t *testing.T, f *fixture) string {
			// 65-byte payload ends in a 2-character group whose second
			// character carries 4 unused bits.
			for pad := 0; ; pad++ {
				p := payloadOf(t, func(c map[string]any) { c["x"] = strings.Repeat("y", pad) })
				if len(p)%3 != 1 {
					continue
				}
				tok := rawSign(t, "ES256", f.k.p256, h, p)
				parts := strings.Split(tok, ".")
				last := parts[1][len(parts[1])-1]
				alt := strings.IndexByte("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_", last) + 1
				parts[1] = parts[1][:len(parts[1])-1] + string("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"[alt])
				return strings.Join(parts, ".")
			}
		}, ReasonMalformed},
		{"oversized token (over 8 KiB)", func(t *testing.T, f *fixture) string {
			return rawSign(t, "ES256", f.k.p256, h, payloadOf(t, func(c map[string]any) { c["pad"] = strings.Repeat("a", 7000) }))
		}, ReasonTooLarge},
		{"oversized run of dots (CVE-2025-27144)", func(*testing.T, *fixture) string { return strings.Repeat(".", 1<<20) }, ReasonTooLarge},
		{"header is an array", esRaw(`["alg","ES256"]`, `{}`), ReasonMalformed},
		{"header is null", esRaw(`null`, `{}`), ReasonMalformed},
		{"header is a string", esRaw(`"ES256"`, `{}`), ReasonMalformed},
		{"header with trailing garbage", esRaw(`{"alg":"ES256","kid":"p256"}x`, `{}`), ReasonMalformed},
		{"payload with trailing garbage", func(t *testing.T, f *fixture) string {
			return rawSign(t, "ES256", f.k.p256, h, payloadOf(t, nil)+"{}")
		}, ReasonMalformed},
		{"payload is an array", esRaw(h, `[1,2]`), ReasonMalformed},
		{"payload not UTF-8", func(t *testing.T, f *fixture) string {
			p := payloadOf(t, func(c map[string]any) { c["sub"] = "PLACEHOLDER" })
			p = strings.Replace(p, "PLACEHOLDER", "\xff\xfe", 1)
			return rawSign(t, "ES256", f.k.p256, h, p)
		}, ReasonMalformed},
		{"header not UTF-8", esRaw("{\"alg\":\"ES256\",\"kid\":\"p256\",\"x\":\"\xc3\x28\"}", `{}`), ReasonMalformed},
		{"nested JSON bomb within the size limit", func(t *testing.T, f *fixture) string {
			p := payloadOf(t, nil)
			p = p[:len(p)-1] + `,"bomb":` + strings.Repeat("[", 2500) + strings.Repeat("]", 2500) + "}"
			return rawSign(t, "ES256", f.k.p256b, h, p)
		}, ReasonSignature},
		{"kid unknown", es(`{"alg":"ES256","kid":"nope"}`, nil), ReasonUnknownKey},
		{"kid path traversal", es(`{"alg":"ES256","kid":"../../../etc/passwd"}`, nil), ReasonUnknownKey},
		{"kid URL", es(`{"alg":"ES256","kid":"http://127.0.0.1:1/evil"}`, nil), ReasonUnknownKey},
		{"kid of a skipped 1024-bit RSA key", func(t *testing.T, f *fixture) string {
			return rawSign(t, "RS256", f.k.rsa1024, `{"alg":"RS256","kid":"rsa-weak"}`, payloadOf(t, nil))
		}, ReasonUnknownKey},
		{"kid is a number", es(`{"alg":"ES256","kid":7}`, nil), ReasonMalformed},
		{"exp missing", es(h, func(c map[string]any) { delete(c, "exp") }), ReasonInvalidClaims},
		{"exp as a string", es(h, func(c map[string]any) { c["exp"] = "2100000000" }), ReasonInvalidClaims},
		{"exp null", es(h, func(c map[string]any) { c["exp"] = nil }), ReasonInvalidClaims},
		{"exp huge (1e400)", esRaw(h, `{"iss":"`+testIssuer+`","aud":"`+testAudience+`","exp":1e400}`), ReasonInvalidClaims},
		{"exp past year 9999", es(h, func(c map[string]any) { c["exp"] = 1e20 }), ReasonInvalidClaims},
		{"exp negative", es(h, func(c map[string]any) { c["exp"] = -1 }), ReasonInvalidClaims},
		{"exp past", es(h, func(c map[string]any) { c["exp"] = testNow.Add(-time.Hour).Unix() }), ReasonExpired},
		{"nbf in the future", es(h, func(c map[string]any) { c["nbf"] = testNow.Add(time.Hour).Unix() }), ReasonNotYetValid},
		{"nbf as a string", es(h, func(c map[string]any) { c["nbf"] = "0" }), ReasonInvalidClaims},
		{"iat in the future", es(h, func(c map[string]any) { c["iat"] = testNow.Add(time.Hour).Unix() }), ReasonNotYetValid},
		{"iss with a trailing slash", es(h, func(c map[string]any) { c["iss"] = testIssuer + "/" }), ReasonIssuer},
		{"iss of another issuer", es(h, func(c map[string]any) { c["iss"] = "https://evil.example" }), ReasonIssuer},
		{"iss differing in case", es(h, func(c map[string]any) { c["iss"] = strings.ToUpper(testIssuer) }), ReasonIssuer},
		{"iss missing", es(h, func(c map[string]any) { delete(c, "iss") }), ReasonIssuer},
		{"iss not a string", es(h, func(c map[string]any) { c["iss"] = []string{testIssuer} }), ReasonInvalidClaims},
		{"aud missing", es(h, func(c map[string]any) { delete(c, "aud") }), ReasonAudience},
		{"aud of another API", es(h, func(c map[string]any) { c["aud"] = "https://other.example" }), ReasonAudience},
		{"aud array without ours", es(h, func(c map[string]any) { c["aud"] = []string{"a", "b"} }), ReasonAudience},
		{"aud empty array", es(h, func(c map[string]any) { c["aud"] = []string{} }), ReasonAudience},
		// Regression: issue 25 item 10. aud is compared whole: ours with a
		// suffix, or cut short, is another audience, alone or in an array.
		{"aud <ours>.evil", es(h, func(c map[string]any) { c["aud"] = testAudience + ".evil" }), ReasonAudience},
		{"aud <ours>/", es(h, func(c map[string]any) { c["aud"] = testAudience + "/" }), ReasonAudience},
		{"aud <ours>x", es(h, func(c map[string]any) { c["aud"] = testAudience + "x" }), ReasonAudience},
		{"aud ours cut short", es(h, func(c map[string]any) { c["aud"] = testAudience[:len(testAudience)-1] }), ReasonAudience},
		{"aud [<ours>.evil]", es(h, func(c map[string]any) { c["aud"] = []string{testAudience + ".evil"} }), ReasonAudience},
		{"aud [<ours>/]", es(h, func(c map[string]any) { c["aud"] = []string{testAudience + "/"} }), ReasonAudience},
		{"aud [<ours>x]", es(h, func(c map[string]any) { c["aud"] = []string{testAudience + "x"} }), ReasonAudience},
		{"aud [other, <ours>x]", es(h, func(c map[string]any) { c["aud"] = []string{"https://other.example", testAudience + "x"} }), ReasonAudience},
		{"aud [ours cut short]", es(h, func(c map[string]any) { c["aud"] = []string{testAudience[:len(testAudience)-1]} }), ReasonAudience},
		{"aud a number", es(h, func(c map[string]any) { c["aud"] = 1 }), ReasonInvalidClaims},
		{"aud array holding a number", es(h, func(c map[string]any) { c["aud"] = []any{testAudience, 1} }), ReasonInvalidClaims},
		{"sub a number", es(h, func(c map[string]any) { c["sub"] = 42 }), ReasonInvalidClaims},
		{"scope an array", es(h, func(c map[string]any) { c["scope"] = []string{"admin"} }), ReasonInvalidClaims},
		{"scp an object", es(h, func(c map[string]any) { c["scp"] = map[string]any{"admin": true} }), ReasonInvalidClaims},
	}
}

func TestVerifierRefusesHostileTokens(t *testing.T) {
	f := newFixture(t)
	cases := hostileTokens()
	if len(cases) < 30 {
		t.Fatalf("only %d hostile tokens", len(cases))
	}
	fetches := f.jwks.requests.Load()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tok := c.token(t, f)
			p, err := f.v.Verify(context.Background(), tok)
			if err == nil {
				t.Fatalf("accepted as %+v", p)
			}
			if got := reasonOf(t, err); got != c.want {
				t.Fatalf("reason = %s, want %s (%v)", got, c.want, err)
			}
			if p.Authenticated {
				t.Fatal("refusal returned an authenticated principal")
			}
			var te *TokenError
			errors.As(err, &te)
			if c.want.Forged() && te.Signed {
				t.Fatal("a forged token is marked signed")
			}
		})
	}
	// A retry interval of an hour: unknown kids found the set just loaded
	// and fetched nothing more.
	if got := f.jwks.requests.Load(); got != fetches {
		t.Errorf("hostile tokens caused %d key fetches", got-fetches)
	}
}
