package oidcprovider

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

const assertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

// accessToken is a verified JWT access token.
type accessToken struct {
	Header jose.Header
	Typ    string
	Claims map[string]any
}

func (a accessToken) str(name string) string {
	s, _ := a.Claims[name].(string)
	return s
}

func (a accessToken) num(name string) int64 {
	f, _ := a.Claims[name].(float64)
	return int64(f)
}

// fetchJWKS reads the provider's published keys.
func fetchJWKS(t *testing.T, p *Provider) jose.JSONWebKeySet {
	t.Helper()
	resp, err := http.Get(p.JWKSURI)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var set jose.JSONWebKeySet
	if err := json.NewDecoder(resp.Body).Decode(&set); err != nil {
		t.Fatal(err)
	}
	return set
}

// verify checks token's signature against the provider's JWKS, as a resource server would.
func verify(t *testing.T, p *Provider, token string) accessToken {
	t.Helper()
	jws, err := jose.ParseSignedCompact(token, []jose.SignatureAlgorithm{jose.ES256, jose.RS256})
	if err != nil {
		t.Fatalf("access token is not a JWS: %v", err)
	}
	hdr := jws.Signatures[0].Header
	set := fetchJWKS(t, p)
	keys := set.Key(hdr.KeyID)
	if len(keys) != 1 {
		t.Fatalf("kid %q: %d keys in the JWKS, want 1", hdr.KeyID, len(keys))
	}
	payload, err := jws.Verify(keys[0])
	if err != nil {
		t.Fatalf("signature: %v", err)
	}
	out := accessToken{Header: hdr}
	out.Typ, _ = hdr.ExtraHeaders[jose.HeaderType].(string)
	if err := json.Unmarshal(payload, &out.Claims); err != nil {
		t.Fatal(err)
	}
	return out
}

// keyClient is a private_key_jwt client with a fresh P-256 key.
type keyClient struct {
	id  string
	key *ecdsa.PrivateKey
	kid string
}

func newKeyClient(t *testing.T, id string) keyClient {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return keyClient{id: id, key: key, kid: id + "-key"}
}

func (c keyClient) registration() Client {
	set := jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &c.key.PublicKey, KeyID: c.kid, Algorithm: "ES256", Use: "sig"}}}
	raw, _ := json.Marshal(set)
	return Client{ID: c.id, AuthMethod: "private_key_jwt", JWKS: raw}
}

// assertion signs a client assertion; edit may change its claims before signing.
func (c keyClient) assertion(t *testing.T, typ string, aud any, edit func(map[string]any)) string {
	t.Helper()
	opts := (&jose.SignerOptions{}).WithHeader("kid", c.kid)
	if typ != "" {
		opts = opts.WithType(jose.ContentType(typ))
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: c.key}, opts)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	claims := map[string]any{
		"iss": c.id, "sub": c.id, "aud": aud, "jti": rand.Text(),
		"iat": now.Unix(), "exp": now.Add(time.Minute).Unix(),
	}
	if edit != nil {
		edit(claims)
	}
	s, err := jwt.Signed(signer).Claims(claims).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func assertionForm(assertion string, extra url.Values) url.Values {
	form := url.Values{
		"grant_type":            {GrantClientCredentials},
		"client_assertion_type": {assertionType},
		"client_assertion":      {assertion},
	}
	for k, v := range extra {
		form[k] = v
	}
	return form
}

// wantRefusal checks an OAuth error answer: status, error code, JSON body and no-store.
func wantRefusal(t *testing.T, res TokenResult, status int, code string) {
	t.Helper()
	if res.Status != status || res.Error != code {
		t.Fatalf("got %d %q (%s), want %d %q", res.Status, res.Error, res.Body, status, code)
	}
	if ct := res.Header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
		t.Errorf("Content-Type %q", ct)
	}
	if cc := res.Header.Get("Cache-Control"); cc != "no-store" {
		t.Errorf("Cache-Control %q, want no-store", cc)
	}
	if res.AccessToken != "" {
		t.Errorf("refusal carries an access token")
	}
}

const hsSecret = "client-secret-jwt-needs-32-bytes-or-more"

// hsAssertion signs a client_secret_jwt assertion with hsSecret.
func hsAssertion(t *testing.T, clientID, aud string) string {
	t.Helper()
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.HS256, Key: []byte(hsSecret)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	s, err := jwt.Signed(signer).Claims(map[string]any{
		"iss": clientID, "sub": clientID, "aud": aud, "jti": rand.Text(), "iat": now.Unix(), "exp": now.Add(time.Minute).Unix(),
	}).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return s
}
