package bearer

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"go.uber.org/zap"
)

func TestParseJWKSSkipsKeysItCannotUse(t *testing.T) {
	k := keys(t)
	p224, err := ecdsa.GenerateKey(elliptic.P224(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	encKey := func() json.RawMessage {
		var m map[string]any
		json.Unmarshal(jwkJSON(t, &k.p384.PublicKey, "enc", ""), &m)
		m["use"] = "enc"
		b, _ := json.Marshal(m)
		return b
	}()
	cases := []struct {
		name string
		jwk  json.RawMessage
	}{
		{"use enc", encKey},
		{"symmetric oct", json.RawMessage(`{"kty":"oct","kid":"hs","k":"c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0"}`)},
		{"unknown kty", json.RawMessage(`{"kty":"XYZ","kid":"x"}`)},
		{"missing kty", json.RawMessage(`{"kid":"x"}`)},
		{"RSA 1024", jwkJSON(t, &k.rsa1024.PublicKey, "weak", "")},
		{"P-224", json.RawMessage(`{"kty":"EC","crv":"P-224","kid":"p224","x":"` + enc.EncodeToString(p224.X.Bytes()) + `","y":"` + enc.EncodeToString(p224.Y.Bytes()) + `"}`)},
		{"declares HS256", jwkJSON(t, &k.p256.PublicKey, "hs-declared", "HS256")},
		{"declares ES384 on P-256", jwkJSON(t, &k.p256.PublicKey, "wrong-curve-alg", "ES384")},
		{"declares RS256 on EC", jwkJSON(t, &k.p256.PublicKey, "wrong-family-alg", "RS256")},
		{"not an object", json.RawMessage(`"key"`)},
		{"point not on curve", json.RawMessage(`{"kty":"EC","crv":"P-256","kid":"bad","x":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA","y":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}`)},
	}
	good := jwkJSON(t, &k.p256.PublicKey, "good", "ES256")
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := parseJWKS(jwksJSON(t, c.jwk, good), zap.NewNop())
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 1 || got[0].id != "good" {
				t.Fatalf("kept %d keys", len(got))
			}
			if _, err := parseJWKS(jwksJSON(t, c.jwk), zap.NewNop()); err == nil {
				t.Fatal("a set of only unusable keys was accepted")
			}
		})
	}
}

func TestParseJWKSUsesThePublicHalfOfAPrivateJWK(t *testing.T) {
	k := keys(t)
	b, err := json.Marshal(map[string]any{"keys": []any{json.RawMessage(mustJSON(t, joseJWK(k.p256, "priv")))}})
	if err != nil {
		t.Fatal(err)
	}
	got, err := parseJWKS(b, zap.NewNop())
	if err != nil || len(got) != 1 || !got[0].ec.Equal(&k.p256.PublicKey) {
		t.Fatalf("got %v, %v", got, err)
	}
}

func TestFetchDocumentRefusesOversizedAndNon200(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/big":
			w.Write([]byte(`{"keys":["` + strings.Repeat("a", maxDocumentSize) + `"]}`))
		case "/gone":
			w.WriteHeader(http.StatusGone)
		}
	}))
	t.Cleanup(srv.Close)
	if _, _, err := fetchDocument(context.Background(), srv.Client(), srv.URL+"/big", "application/json"); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("oversized: %v", err)
	}
	if _, _, err := fetchDocument(context.Background(), srv.Client(), srv.URL+"/gone", "application/json"); err == nil || !strings.Contains(err.Error(), "status 410") {
		t.Fatalf("410: %v", err)
	}
}
