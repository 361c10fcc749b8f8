package authn_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/svckit/svc/modules/authn"
	svcerrors "github.com/svckit/svc/modules/errors"
)

func TestProtectedResourceMetadata(t *testing.T) {
	srv := gateServer(t, svcerrors.New(), exampleRouter(), newFake(),
		authn.Resource("https://api.example.com/v1"), authn.Scopes("read", "admin"))
	got := do(t, srv, "GET", "/.well-known/oauth-protected-resource/v1", nil, "")
	if got.status != 200 || got.header.Get("Access-Control-Allow-Origin") != "*" || got.header.Get("Content-Type") != "application/json" {
		t.Fatalf("%d %v", got.status, got.header)
	}
	var doc struct {
		Resource               string   `json:"resource"`
		AuthorizationServers   []string `json:"authorization_servers"`
		BearerMethodsSupported []string `json:"bearer_methods_supported"`
		ScopesSupported        []string `json:"scopes_supported"`
	}
	if err := json.Unmarshal([]byte(got.body), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Resource != "https://api.example.com/v1" || strings.Join(doc.AuthorizationServers, ",") != "https://idp.test" ||
		strings.Join(doc.BearerMethodsSupported, ",") != "header" || strings.Join(doc.ScopesSupported, ",") != "read,admin" {
		t.Fatalf("%+v", doc)
	}
	// Never authenticated: a forged token there is not read.
	if got := do(t, srv, "GET", "/.well-known/oauth-protected-resource/v1", bearerHeader("forged-token"), ""); got.status != 200 {
		t.Fatalf("with a bad token: %d", got.status)
	}
	// Nothing is read from the request: a spoofed Host changes nothing.
	h := http.Header{"X-Forwarded-Host": {"evil.test"}}
	if got := do(t, srv, "GET", "/.well-known/oauth-protected-resource/v1", h, ""); !strings.Contains(got.body, `"https://api.example.com/v1"`) || strings.Contains(got.body, "evil") {
		t.Fatalf("%s", got.body)
	}
}

func TestEveryChallengeNamesTheMetadata(t *testing.T) {
	srv := gateServer(t, svcerrors.New(), exampleRouter(), newFake(), authn.Resource("https://api.example.com"))
	const rm = `resource_metadata="https://api.example.com/.well-known/oauth-protected-resource"`
	for _, tc := range []struct {
		path   string
		header http.Header
		status int
	}{
		{"/me", nil, 401},
		{"/me", bearerHeader("expired-token"), 401},
		{"/me", http.Header{"Authorization": {"Bearer a", "Bearer b"}}, 400},
		{"/admin", bearerHeader("alice-token"), 403}, // raised by the route's marker, not the gate
		{"/nowhere", nil, 401},
	} {
		got := do(t, srv, "GET", tc.path, tc.header, "")
		if got.status != tc.status || !strings.Contains(got.header.Get("WWW-Authenticate"), rm) {
			t.Errorf("%s: %d %q", tc.path, got.status, got.header.Get("WWW-Authenticate"))
		}
	}
	if got := do(t, srv, "GET", "/.well-known/oauth-protected-resource", nil, ""); got.status != 200 {
		t.Fatalf("metadata at the root resource: %d", got.status)
	}
}

type noIssuers struct{ fakeVerifier }

func (noIssuers) Issuers() []string { return nil }

func TestResourceRefusals(t *testing.T) {
	for _, res := range []string{
		"http://api.example.com",
		"https://api.example.com/#frag",
		"https://api.example.com/#", // an empty fragment is still one (RFC 9728 §1.2)
		"https://api.example.com/v1#",
		"https://api.example.com/{tenant}",
		"https://user:pw@api.example.com",
		"https://api.example.com/?q=1",
		"not a url",
		"https:///path",
	} {
		_, err := authn.New(newFake(), authn.Resource(res))
		var re *authn.ResourceError
		if !errors.As(err, &re) {
			t.Errorf("Resource(%q): err = %v, want a ResourceError", res, err)
		}
		if err != nil && strings.Contains(err.Error(), "pw") {
			t.Errorf("error repeats the credentials: %v", err)
		}
	}
	_, err := authn.New(&noIssuers{}, authn.Resource("https://api.example.com"))
	if err == nil || !strings.Contains(err.Error(), "AuthorizationServers") {
		t.Fatalf("verifier with no issuers: %v", err)
	}
	if _, err := authn.New(&noIssuers{}, authn.Resource("https://api.example.com"), authn.AuthorizationServers("https://idp.test")); err != nil {
		t.Fatal(err)
	}
}

// TestMetadataAtAnEscapedResourcePath: the document is served at the URL
// every challenge names, also when the resource's path is percent-encoded.
func TestMetadataAtAnEscapedResourcePath(t *testing.T) {
	srv := gateServer(t, svcerrors.New(), exampleRouter(), newFake(), authn.Resource("https://api.example.com/a%20b"))
	c := do(t, srv, "GET", "/me", nil, "").header.Get("WWW-Authenticate")
	const url = "https://api.example.com/.well-known/oauth-protected-resource/a%20b"
	if c != `Bearer resource_metadata="`+url+`"` {
		t.Fatalf("challenge %q", c)
	}
	got := do(t, srv, "GET", strings.TrimPrefix(url, "https://api.example.com"), nil, "")
	if got.status != 200 || !strings.Contains(got.body, `"resource":"https://api.example.com/a%20b"`) {
		t.Fatalf("%d %s", got.status, got.body)
	}
}
