package bearer

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// Discover takes introspection_endpoint from the discovery document when
// Introspect is given none.
func TestDiscoverFindsIntrospectionEndpoint(t *testing.T) {
	ep := newIntrospectionServer(t, activeAnswer())
	p := newProvider(t, "", true)
	p.doc = func(issuer, jwksURI string) map[string]any {
		return map[string]any{"issuer": issuer, "jwks_uri": jwksURI, "introspection_endpoint": ep.URL + "/introspect"}
	}
	v := discoverVerifier(t, p.issuer, Introspect("", testClient(t, ep.URL+"/token")))
	waitKeys(t, v)
	a := activeAnswer()
	a["iss"] = p.issuer
	ep.setAnswer(t, a)
	if _, err := v.Verify(context.Background(), opaqueToken); err != nil || v.introspectionEndpoint() != ep.URL+"/introspect" {
		t.Fatalf("%v, endpoint %q", err, v.introspectionEndpoint())
	}
}

// Issue 37 item 10: Introspect("") against a discovery document with no
// usable introspection_endpoint (Ory Hydra's public document names none)
// fails the discovery: Ready, every Verify and the gate's 503 cause line
// name introspection_endpoint and the discovery URL, where they used to
// say "first key fetch still running" of keys that were loaded (and Ready
// was nil). No introspection request is sent. The same document serves a
// verifier that does not introspect, or that was given its endpoint.
func TestDiscoveryWithoutIntrospectionEndpointIsNotReady(t *testing.T) {
	ep := newIntrospectionServer(t, activeAnswer())
	for _, tt := range []struct{ name, endpoint, says string }{
		{"absent", "", "no introspection_endpoint"},
		{"plain http", "http://idp.example/introspect", `introspection_endpoint "http://idp.example/introspect" must be https`},
		{"a query", ep.URL + "/introspect?tenant=x", "has a query"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := newProvider(t, "", true)
			p.doc = func(issuer, jwksURI string) map[string]any {
				d := map[string]any{"issuer": issuer, "jwks_uri": jwksURI}
				if tt.endpoint != "" {
					d["introspection_endpoint"] = tt.endpoint
				}
				return d
			}
			docURL := p.issuer + "/.well-known/openid-configuration"
			v := discoverVerifier(t, p.issuer, Introspect("", testClient(t, ep.URL+"/token")))
			ready := waitNotReadyFor(t, v, "introspection_endpoint")
			for _, want := range []string{tt.says, docURL, "bearer.Introspect"} {
				if !strings.Contains(ready.Error(), want) {
					t.Fatalf("Ready: %v\nwant it to say %q", ready, want)
				}
			}
			_, err := v.Verify(context.Background(), opaqueToken)
			if !errors.Is(err, ErrIntrospectionUnavailable) || !strings.Contains(err.Error(), tt.says) ||
				!strings.Contains(err.Error(), docURL) || strings.Contains(err.Error(), "still running") {
				t.Fatalf("opaque token: %v", err)
			}
			if _, err := v.Verify(context.Background(), tokenFor(t, p.issuer)); !errors.Is(err, ErrKeysUnavailable) {
				t.Fatalf("JWT: %v", err)
			}
			if v.introspectionEndpoint() != "" || ep.requests.Load() != 0 {
				t.Fatalf("endpoint %q, %d introspection requests", v.introspectionEndpoint(), ep.requests.Load())
			}
		})
	}
	t.Run("not needed", func(t *testing.T) {
		p := newProvider(t, "", true) // its document names no introspection_endpoint
		waitKeys(t, discoverVerifier(t, p.issuer))
		v := discoverVerifier(t, p.issuer, Introspect(ep.URL+"/introspect", testClient(t, ep.URL+"/token")))
		waitKeys(t, v)
		if err := v.Ready(); err != nil {
			t.Fatal(err)
		}
	})
}

// waitNotReadyFor polls v.Ready until its error says want (the first
// discovery runs in the background), and returns it.
func waitNotReadyFor(t *testing.T, v *JWTVerifier, want string) error {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := v.Ready()
		if err != nil && strings.Contains(err.Error(), want) {
			return err
		}
		if time.Now().After(deadline) {
			t.Fatalf("Ready never said %q: %v", want, err)
		}
		time.Sleep(2 * time.Millisecond)
	}
}
