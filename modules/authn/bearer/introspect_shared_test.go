package bearer

import (
	"context"
	"crypto"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/svckit/svc/modules/oauthclient"
)

// memShared is a store.Introspections in memory, as Redis would be to two
// replicas; failing makes every operation fail as an unreachable one.
type memShared struct {
	mu      sync.Mutex
	entries map[string][]byte
	failing bool
	sets    int
}

func newMemShared() *memShared { return &memShared{entries: map[string][]byte{}} }

func (m *memShared) Get(_ context.Context, key string) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.failing {
		return nil, errors.New("store down")
	}
	return m.entries[key], nil
}

func (m *memShared) Set(_ context.Context, key string, value []byte, _ time.Duration) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.failing {
		return errors.New("store down")
	}
	m.sets++
	m.entries[key] = append([]byte(nil), value...)
	return nil
}

func (m *memShared) only(t *testing.T) (string, []byte) {
	t.Helper()
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.entries) != 1 {
		t.Fatalf("%d shared entries, want 1", len(m.entries))
	}
	for k, v := range m.entries {
		return k, v
	}
	return "", nil
}

func (m *memShared) put(key string, value []byte) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.entries[key] = value
}

// signedIntrospection is the RFC 9701 answer of the RSA test key around
// inner, issued at iat.
func signedIntrospection(t testing.TB, key any, inner map[string]any, iat time.Time) []byte {
	return signedAnswer(t, key, map[string]any{"alg": "RS256", "typ": "token-introspection+jwt"},
		map[string]any{"iss": testIssuer, "aud": testClientID, "iat": iat.Unix(), "token_introspection": inner})
}

// Issue 20: two replicas sharing a store cause one introspection request
// for a token, with plain and signed answers alike, active or not.
func TestSharedIntrospectionsAskOnceForTwoReplicas(t *testing.T) {
	inactive := map[string]any{"active": false}
	tests := []struct {
		name   string
		answer func(t *testing.T) ([]byte, string)
		want   Reason // "" for an active token
	}{
		{"plain active", func(t *testing.T) ([]byte, string) { b, _ := json.Marshal(activeAnswer()); return b, mediaJSON }, ""},
		{"plain inactive", func(t *testing.T) ([]byte, string) { b, _ := json.Marshal(inactive); return b, mediaJSON }, ReasonInactive},
		{"signed active", func(t *testing.T) ([]byte, string) {
			return signedIntrospection(t, keys(t).rsa, activeAnswer(), testNow), mediaIntrospection
		}, ""},
		{"signed inactive", func(t *testing.T) ([]byte, string) {
			return signedIntrospection(t, keys(t).rsa, inactive, testNow), mediaIntrospection
		}, ReasonInactive},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newIntrospectionServer(t, nil)
			srv.setRaw(tt.answer(t))
			shared := newMemShared()
			one := introspectingVerifier(t, srv, Store(shared))
			two := introspectingVerifier(t, srv, Store(shared))
			p1, err1 := one.Verify(context.Background(), opaqueToken)
			p2, err2 := two.Verify(context.Background(), opaqueToken)
			if n := srv.requests.Load(); n != 1 {
				t.Fatalf("%d introspection requests, want 1", n)
			}
			if tt.want != "" {
				if reasonOf(t, err1) != tt.want || reasonOf(t, err2) != tt.want {
					t.Fatalf("got %v and %v, want %s", err1, err2, tt.want)
				}
				return
			}
			if err1 != nil || err2 != nil || p2.Subject != "user-1" || p2.Subject != p1.Subject || len(p2.Scopes) != len(p1.Scopes) || len(p1.Scopes) == 0 {
				t.Fatalf("first %+v %v, second %+v %v", p1, err1, p2, err2)
			}
			_, entry := shared.only(t)
			if strings.Contains(string(entry), opaqueToken) || strings.Contains(string(entry), testSecret) {
				t.Fatal("the shared entry holds the token or the client secret")
			}
		})
	}
}

// forgedEntry builds the entry a writer of the store could: kind, expiry,
// tag and answer as given, in the stored layout.
func forgedEntry(kind byte, until time.Time, tag, answer []byte) []byte {
	e := []byte{sharedVersion, kind}
	e = binary.BigEndian.AppendUint64(e, uint64(until.UnixNano()))
	return append(append(e, tag...), answer...)
}

// Issue 20: whoever can write the shared store cannot make a replica
// accept a token. Each forged entry is ignored, the endpoint is asked
// (answering inactive here), and a warning says so.
func TestSharedIntrospectionsRefuseForgedEntries(t *testing.T) {
	k := keys(t)
	active, _ := json.Marshal(activeAnswer())
	far := testNow.Add(time.Hour)
	other := sha256.Sum256([]byte("another-opaque-token"))
	// honest computes what a replica holding the client's secret would
	// store, to build entries only an insider could: what the signature
	// and iat checks still refuse.
	honest := func(t *testing.T, v *JWTVerifier, token [sha256.Size]byte, kind byte, until time.Time, answer []byte) []byte {
		s := v.intro.shared.Load()
		key, ok := s.key()
		if !ok {
			t.Fatal("no key")
		}
		return forgedEntry(kind, until, s.tag(key, token, kind, until.UnixNano(), answer), answer)
	}
	mine := sha256.Sum256([]byte(opaqueToken))
	tests := []struct {
		name  string
		entry func(t *testing.T, v *JWTVerifier) []byte
		quiet bool // ignored without a warning (a stale entry is no forgery)
	}{
		{"valid-looking JSON, wrong tag", func(t *testing.T, v *JWTVerifier) []byte {
			return forgedEntry(sharedPlain, far, make([]byte, sha256.Size), active)
		}, false},
		{"the bare answer", func(t *testing.T, v *JWTVerifier) []byte { return active }, false},
		{"a signed answer, wrong tag", func(t *testing.T, v *JWTVerifier) []byte {
			return forgedEntry(sharedSigned, far, make([]byte, sha256.Size), signedIntrospection(t, k.rsa, activeAnswer(), testNow))
		}, false},
		{"re-signed with a foreign key, tag valid", func(t *testing.T, v *JWTVerifier) []byte {
			return honest(t, v, mine, sharedSigned, far, signedIntrospection(t, k.rsa2, activeAnswer(), testNow))
		}, false},
		{"an old signed answer, tag valid", func(t *testing.T, v *JWTVerifier) []byte {
			return honest(t, v, mine, sharedSigned, far, signedIntrospection(t, k.rsa, activeAnswer(), testNow.Add(-10*time.Minute)))
		}, false},
		{"a signed answer from the future, tag valid", func(t *testing.T, v *JWTVerifier) []byte {
			return honest(t, v, mine, sharedSigned, far, signedIntrospection(t, k.rsa, activeAnswer(), testNow.Add(10*time.Minute)))
		}, false},
		{"another token's entry copied", func(t *testing.T, v *JWTVerifier) []byte {
			return honest(t, v, other, sharedPlain, far, active)
		}, false},
		{"another token's signed entry copied", func(t *testing.T, v *JWTVerifier) []byte {
			return honest(t, v, other, sharedSigned, far, signedIntrospection(t, k.rsa, activeAnswer(), testNow))
		}, false},
		{"expiry moved on", func(t *testing.T, v *JWTVerifier) []byte {
			e := honest(t, v, mine, sharedPlain, testNow.Add(-time.Second), active)
			binary.BigEndian.PutUint64(e[2:10], uint64(far.UnixNano()))
			return e
		}, false},
		{"stale", func(t *testing.T, v *JWTVerifier) []byte {
			return honest(t, v, mine, sharedPlain, testNow.Add(-time.Second), active)
		}, true},
		{"truncated", func(t *testing.T, v *JWTVerifier) []byte { return []byte{sharedVersion, sharedPlain, 0} }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newIntrospectionServer(t, map[string]any{"active": false})
			shared := newMemShared()
			core, logs := observer.New(zapcore.WarnLevel)
			v := introspectingVerifier(t, srv, Store(shared), Logger(zap.New(core)))
			shared.put(v.intro.shared.Load().storeKey(mine), tt.entry(t, v))
			_, err := v.Verify(context.Background(), opaqueToken)
			if got := reasonOf(t, err); got != ReasonInactive {
				t.Fatalf("got %v, want the endpoint's inactive", err)
			}
			if n := srv.requests.Load(); n != 1 {
				t.Fatalf("%d introspection requests, want 1", n)
			}
			warned := logs.FilterMessageSnippet("shared introspection answer was ignored").Len()
			if tt.quiet != (warned == 0) {
				t.Fatalf("%d warnings, quiet %v", warned, tt.quiet)
			}
		})
	}
}

// A shared entry is reused no longer than a fresh answer: an honest
// entry whose expiry lies beyond the TTL is cut to it.
func TestSharedIntrospectionsKeepTheTTL(t *testing.T) {
	srv := newIntrospectionServer(t, activeAnswer())
	shared := newMemShared()
	clock := newMovableClock()
	writer := introspectingVerifier(t, srv, Store(shared), clock.option(), IntrospectionTTL(30*time.Second))
	if _, err := writer.Verify(context.Background(), opaqueToken); err != nil {
		t.Fatal(err)
	}
	clock.add(29 * time.Second)
	reader := introspectingVerifier(t, srv, Store(shared), clock.option(), IntrospectionTTL(30*time.Second))
	if _, err := reader.Verify(context.Background(), opaqueToken); err != nil || srv.requests.Load() != 1 {
		t.Fatalf("%v, %d requests", err, srv.requests.Load())
	}
	clock.add(time.Second)
	if _, err := reader.Verify(context.Background(), opaqueToken); err != nil || srv.requests.Load() != 2 {
		t.Fatalf("%v, %d requests: a shared answer outlived the TTL", err, srv.requests.Load())
	}
}

// Issue 20: a store that fails is a miss, never a verdict: the endpoint
// answers, active or not.
func TestSharedIntrospectionsFallBackToTheEndpoint(t *testing.T) {
	srv := newIntrospectionServer(t, activeAnswer())
	shared := newMemShared()
	shared.failing = true
	v := introspectingVerifier(t, srv, Store(shared))
	if p, err := v.Verify(context.Background(), opaqueToken); err != nil || p.Subject != "user-1" {
		t.Fatalf("%+v %v", p, err)
	}
	srv.setAnswer(t, map[string]any{"active": false})
	other := introspectingVerifier(t, srv, Store(shared))
	if _, err := other.Verify(context.Background(), opaqueToken); reasonOf(t, err) != ReasonInactive {
		t.Fatalf("got %v", err)
	}
}

// Issue 20: a client without a shared secret (private_key_jwt) has no key
// to authenticate entries with: nothing is shared, and Open says so.
func TestSharedIntrospectionsStayLocalWithoutASharedSecret(t *testing.T) {
	srv := newIntrospectionServer(t, activeAnswer())
	shared := newMemShared()
	client := testClient(t, srv.URL+"/token", oauthclient.PrivateKey(rsaKeyPEM(t), oauthclient.AudienceTokenEndpoint))
	core, logs := observer.New(zapcore.InfoLevel)
	mk := func() *JWTVerifier {
		return openVerifier(t, KeySet(testIssuer, testAudience, []crypto.PublicKey{&keys(t).rsa.PublicKey}, Clock(fixedClock()),
			Introspect(srv.URL+"/introspect", client), Store(shared), Logger(zap.New(core))))
	}
	one, two := mk(), mk()
	for _, v := range []*JWTVerifier{one, two} {
		if _, err := v.Verify(context.Background(), opaqueToken); err != nil {
			t.Fatal(err)
		}
	}
	if shared.sets != 0 || srv.requests.Load() != 2 {
		t.Fatalf("%d entries shared, %d requests: want none shared, one request per replica", shared.sets, srv.requests.Load())
	}
	if n := logs.FilterMessageSnippet("stay in this replica's cache").Len(); n != 2 {
		t.Fatalf("%d lines saying the cache stays per replica, want one per verifier: %v", n, logs.All())
	}
}

// The gate hands the app's shared store (fxsvc's, through SharedStores)
// to its verifier, unless Store gave one; Issuers hands it to the member
// that introspects.
func TestTheGateSharesIntrospectionsWithItsVerifier(t *testing.T) {
	srv := newIntrospectionServer(t, activeAnswer())
	appStore, own := newMemShared(), newMemShared()
	for _, tt := range []struct {
		name string
		v    func() Verifier
		want *memShared
	}{
		{"JWTVerifier", func() Verifier { return introspectingVerifier(t, srv) }, appStore},
		{"its own store wins", func() Verifier { return introspectingVerifier(t, srv, Store(own)) }, own},
		{"Issuers", func() Verifier {
			s := Issuers(KeySet(testIssuer, testAudience, []crypto.PublicKey{&keys(t).rsa.PublicKey}, Clock(fixedClock()),
				Introspect(srv.URL+"/introspect", testClient(t, srv.URL+"/token"))))
			t.Cleanup(func() { s.(*issuerSet).Close(context.Background()) })
			return s
		}, appStore},
	} {
		t.Run(tt.name, func(t *testing.T) {
			appStore.entries, own.entries = map[string][]byte{}, map[string][]byte{}
			v := tt.v()
			SetDefaultIntrospectionStore(v, appStore)
			if _, err := v.Verify(context.Background(), opaqueToken); err != nil {
				t.Fatal(err)
			}
			tt.want.only(t)
		})
	}
}

// A signed answer without iat cannot be bounded from when the issuer
// signed it: it stays in the replica that asked, and the other asks too.
func TestSignedAnswersWithoutIatAreNotShared(t *testing.T) {
	srv := newIntrospectionServer(t, nil)
	srv.setRaw(signedAnswer(t, keys(t).rsa, map[string]any{"alg": "RS256", "typ": "token-introspection+jwt"},
		map[string]any{"iss": testIssuer, "aud": testClientID, "token_introspection": activeAnswer()}), mediaIntrospection)
	shared := newMemShared()
	for range 2 {
		v := introspectingVerifier(t, srv, Store(shared))
		if _, err := v.Verify(context.Background(), opaqueToken); err != nil {
			t.Fatal(err)
		}
	}
	if shared.sets != 0 || srv.requests.Load() != 2 {
		t.Fatalf("%d shared, %d requests", shared.sets, srv.requests.Load())
	}
}
