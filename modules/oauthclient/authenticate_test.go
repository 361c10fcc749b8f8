package oauthclient_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/svckit/svc/modules/oauthclient"
	"github.com/svckit/svc/secret"
)

// Authenticate adds what a token request carries, for another endpoint
// of the server (RFC 7662 introspection): Secret(Auto) follows the
// discovered metadata as a token request does; after Close it refuses.
func TestAuthenticateForAnotherEndpoint(t *testing.T) {
	var methods atomic.Pointer[[]string]
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"issuer": "http://" + r.Host, "token_endpoint": "http://" + r.Host + "/token",
			"token_endpoint_auth_methods_supported": *methods.Load(),
		})
	}))
	t.Cleanup(srv.Close)
	for _, tt := range []struct {
		name   string
		listed []string
		auth   oauthclient.ClientAuth
		inForm bool
	}{
		{"auto, basic listed", []string{"client_secret_basic", "client_secret_post"}, oauthclient.Secret(oauthclient.Auto), false},
		{"auto, post alone", []string{"client_secret_post"}, oauthclient.Secret(oauthclient.Auto), true},
		{"basic", nil, oauthclient.Secret(oauthclient.Basic), false},
		{"post", nil, oauthclient.Secret(oauthclient.Post), true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			methods.Store(&tt.listed)
			c, err := oauthclient.New(oauthclient.WithoutEnv(), oauthclient.Issuer(srv.URL), oauthclient.ClientID("rs"),
				oauthclient.ClientSecret(secret.String("pw:1")), tt.auth)
			if err != nil {
				t.Fatal(err)
			}
			h, form := http.Header{}, url.Values{"token": {"x"}}
			if err := c.Authenticate(context.Background(), h, form); err != nil {
				t.Fatal(err)
			}
			if got := form.Get("client_secret") == "pw:1" && form.Get("client_id") == "rs"; got != tt.inForm {
				t.Fatalf("secret in the form: %v, want %v (%v)", got, tt.inForm, form)
			}
			if got := strings.HasPrefix(h.Get("Authorization"), "Basic "); got == tt.inForm {
				t.Fatalf("Authorization %q", h.Get("Authorization"))
			}
			if form.Get("token") != "x" {
				t.Fatal("the caller's fields were changed")
			}
			if err := c.Close(context.Background()); err != nil {
				t.Fatal(err)
			}
			if err := c.Authenticate(context.Background(), http.Header{}, url.Values{}); !errors.Is(err, oauthclient.ErrClosed) {
				t.Fatalf("after Close: %v", err)
			}
		})
	}
}
