package bearer

import (
	"bytes"
	"context"
	"crypto"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// providerToken is one file of testdata/providers (see its README).
type providerToken struct {
	Profile  string          `json:"profile"`
	Issuer   string          `json:"issuer"` // the verifier's, when not the token's iss
	Audience string          `json:"audience"`
	Header   json.RawMessage `json:"header"`
	Claims   json.RawMessage `json:"claims"`
	ClientID string          `json:"client_id"`
	Roles    []string        `json:"roles"`
	Scopes   []string        `json:"scopes"`
	// Authorize are roles a route may require of this token, NotRoles
	// roles it must not hold (the provider's other roles among them).
	Authorize []string `json:"authorize"`
	NotRoles  []string `json:"not_roles"`
	Refused   Reason   `json:"refused"`
}

func readProviderToken(t *testing.T, file string) providerToken {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var pt providerToken
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&pt); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return pt
}

// signProviderToken signs the recorded claims, as written (compacted),
// under the recorded header, with a test RSA key served under the
// header's kid; it returns the token and a verifier of the file's profile
// (none when the file names none) whose clock reads a minute past the
// token's iat.
func signProviderToken(t *testing.T, pt providerToken) (string, *JWTVerifier) {
	t.Helper()
	var head struct {
		Kid string `json:"kid"`
		Alg string `json:"alg"`
	}
	var reg struct {
		Iss string `json:"iss"`
		Iat int64  `json:"iat"`
	}
	if err := json.Unmarshal(pt.Header, &head); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(pt.Claims, &reg); err != nil {
		t.Fatal(err)
	}
	compact := func(raw json.RawMessage) string {
		var b bytes.Buffer
		if err := json.Compact(&b, raw); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	k := keys(t)
	token := rawSign(t, head.Alg, k.rsa, compact(pt.Header), compact(pt.Claims))
	srv := newJWKSServer(t, jwksJSON(t, jwkJSON(t, &k.rsa.PublicKey, head.Kid, head.Alg)))
	opts := []VerifierOption{Clock(func() time.Time { return time.Unix(reg.Iat, 0).Add(time.Minute) })}
	if pt.Profile != "" {
		profile, err := ParseProfile(pt.Profile)
		if err != nil {
			t.Fatal(err)
		}
		opts = append(opts, Profile(profile))
	}
	issuer := pt.Issuer
	if issuer == "" {
		issuer = reg.Iss
	}
	v := openVerifier(t, JWKSURL(srv.URL, issuer, pt.Audience, opts...))
	waitKeys(t, v)
	return token, v
}

// TestProviderTokens verifies each provider's access token, shaped as its
// documentation shows (testdata/providers), with that provider's profile,
// and authorizes on the roles the profile reads: Keycloak realm and client
// roles, Entra ID app-only and delegated v2 tokens and a v1 token to the
// v2 issuer, the Cognito access token (client_id as the audience) and its
// ID token refused (token_use id), Auth0 permissions and a namespaced
// claim, Okta groups, and generic claim paths.
func TestProviderTokens(t *testing.T) {
	files, err := filepath.Glob("testdata/providers/*.json")
	if err != nil || len(files) < 9 {
		t.Fatalf("provider files: %v, %v", files, err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".json"), func(t *testing.T) {
			pt := readProviderToken(t, file)
			token, v := signProviderToken(t, pt)
			p, err := v.Verify(context.Background(), token)
			if pt.Refused != "" {
				if err == nil || reasonOf(t, err) != pt.Refused {
					t.Fatalf("Verify = %+v, %v; want refused %s", p, err, pt.Refused)
				}
				return
			}
			if err != nil {
				t.Fatalf("Verify: %v", err)
			}
			if got := p.Roles.List(); !slices.Equal(got, pt.Roles) {
				t.Errorf("Roles = %q, want %q", got, pt.Roles)
			}
			if p.ClientID != pt.ClientID {
				t.Errorf("ClientID = %q, want %q", p.ClientID, pt.ClientID)
			}
			if pt.Scopes != nil && !slices.Equal(p.Scopes.List(), pt.Scopes) {
				t.Errorf("Scopes = %q, want %q", p.Scopes.List(), pt.Scopes)
			}
			if !p.Roles.Has(pt.Authorize...) {
				t.Errorf("Roles %q do not hold %q", p.Roles.List(), pt.Authorize)
			}
			for _, r := range pt.NotRoles {
				if p.Roles.Has(r) {
					t.Errorf("Roles %q hold %q", p.Roles.List(), r)
				}
			}
		})
	}
}

// TestCognitoAccessTokenRules: the Cognito access token is admitted with
// client_id as its audience, and refused once token_use says id, or its
// client_id names another app client; without the profile, it is refused
// on audience (it carries no aud).
func TestCognitoAccessTokenRules(t *testing.T) {
	base := readProviderToken(t, "testdata/providers/cognito-access.json")
	edit := func(name string, value any) providerToken { return editClaim(t, base, name, value) }
	for _, tc := range []struct {
		name string
		pt   providerToken
		want Reason
	}{
		{"admitted", base, ""},
		{"token_use id", edit("token_use", "id"), ReasonTokenType},
		{"token_use absent", edit("token_use", nil), ReasonTokenType},
		{"other app client", edit("client_id", "2other98765432"), ReasonAudience},
		{"client_id not a string", edit("client_id", 12), ReasonAudience},
		{"groups not strings", edit("cognito:groups", []any{"admin", 1}), ReasonInvalidClaims},
	} {
		t.Run(tc.name, func(t *testing.T) {
			token, v := signProviderToken(t, tc.pt)
			p, err := v.Verify(context.Background(), token)
			if tc.want == "" {
				if err != nil || p.ClientID != "1example23456789" || !p.Roles.Has("admin") {
					t.Fatalf("Verify = %+v, %v", p, err)
				}
				return
			}
			if err == nil || reasonOf(t, err) != tc.want {
				t.Fatalf("Verify = %+v, %v; want %s", p, err, tc.want)
			}
		})
	}
	t.Run("without the profile", func(t *testing.T) {
		plain := base
		plain.Profile = ""
		token, v := signProviderToken(t, plain)
		if _, err := v.Verify(context.Background(), token); err == nil || reasonOf(t, err) != ReasonAudience {
			t.Fatalf("Verify without Profile: %v, want audience", err)
		}
	})
}

// editClaim returns pt with one claim set (nil removes it).
func editClaim(t *testing.T, pt providerToken, name string, value any) providerToken {
	t.Helper()
	var claims map[string]json.RawMessage
	if err := json.Unmarshal(pt.Claims, &claims); err != nil {
		t.Fatal(err)
	}
	delete(claims, name)
	if value != nil {
		b, _ := json.Marshal(value)
		claims[name] = b
	}
	var err error
	if pt.Claims, err = json.Marshal(claims); err != nil {
		t.Fatal(err)
	}
	return pt
}

// TestEntraV1TokenNamesTheTenant: a v1 token to the v2 issuer's verifier
// is refused when its tid names another tenant, or its iss another
// tenant's v1 issuer (Entra signs every tenant's tokens with the same
// keys), and without the Entra profile.
func TestEntraV1TokenNamesTheTenant(t *testing.T) {
	base := readProviderToken(t, "testdata/providers/entra-v1-app.json")
	plain := base
	plain.Profile = ""
	for name, pt := range map[string]providerToken{
		"other tid":    editClaim(t, base, "tid", "0b1c2d3e-1111-4222-8333-444455556666"),
		"no tid":       editClaim(t, base, "tid", nil),
		"other tenant": editClaim(t, base, "iss", "https://sts.windows.net/0b1c2d3e-1111-4222-8333-444455556666/"),
		"no profile":   plain,
	} {
		token, v := signProviderToken(t, pt)
		if _, err := v.Verify(context.Background(), token); err == nil || reasonOf(t, err) != ReasonIssuer {
			t.Errorf("%s: Verify = %v, want issuer", name, err)
		}
	}
}

// TestEntraV1TokenAmongIssuers: under Issuers, a v1 token goes to the
// verifier of its tenant's v2 issuer when that one has the Entra profile.
func TestEntraV1TokenAmongIssuers(t *testing.T) {
	token, v := signProviderToken(t, readProviderToken(t, "testdata/providers/entra-v1-app.json"))
	other := KeySet("https://other.example", "api", []crypto.PublicKey{&keys(t).p256.PublicKey})
	p, err := Issuers(v, other).Verify(context.Background(), token)
	if err != nil || p.ClientID != "1a2b3c4d-1234-4f5e-8a9b-0c1d2e3f4a5b" {
		t.Fatalf("Verify = %+v, %v", p, err)
	}
}
