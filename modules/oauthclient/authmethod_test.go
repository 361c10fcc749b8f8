package oauthclient_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/svckit/svc/modules/oauthclient"
)

// Regression: issue 14 item 22.
// Against Ory Hydra, Secret(Auto) sent Basic to a client registered for
// client_secret_post (Hydra lists both) and the refusal told the user to
// check a secret that was right. The refusal now names the method sent and
// how to choose the other.
func TestInvalidClientNamesTheMethodSent(t *testing.T) {
	cases := []struct {
		name    string
		methods []string
		auth    oauthclient.ClientAuth
		sent    string
		want    []string
	}{
		{"auto with both listed sends basic", []string{"client_secret_basic", "client_secret_post"}, oauthclient.Secret(oauthclient.Auto),
			"client_secret_basic", []string{"sent as client_secret_basic", "registered for client_secret_post", "SVC_OAUTHCLIENT_AUTH_METHOD=post", "oauthclient.Secret(oauthclient.Post)", "SVC_OAUTHCLIENT_CLIENT_ID"}},
		{"post suggests basic", nil, oauthclient.Secret(oauthclient.Post),
			"client_secret_post", []string{"sent as client_secret_post", "SVC_OAUTHCLIENT_AUTH_METHOD=basic", "oauthclient.Secret(oauthclient.Basic)"}},
		{"private key", nil, nil, "private_key_jwt", []string{"private_key_jwt", "registered key"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newTokenServer(t)
			s.authMethods = tc.methods
			s.then(answer{status: 401, body: `{"error":"invalid_client","error_description":"` + leaky + `"}`})
			auth := tc.auth
			if auth == nil {
				auth = oauthclient.PrivateKey(rsaKeyPEM(t))
			}
			_, err := newCC(t, newClient(t, s, newClock(), auth), "api").Token(context.Background())
			var cr *oauthclient.ClientRejectedError
			if !errors.As(err, &cr) || cr.Code != "invalid_client" || cr.Method != tc.sent {
				t.Fatalf("err = %#v, want invalid_client with Method %s", err, tc.sent)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q lacks %q", err, w)
				}
			}
			if !strings.Contains(err.Error(), "sent "+tc.sent) {
				t.Errorf("%q does not say which method was sent", err)
			}
			if tc.auth != nil {
				// The secret sent, echoed by the server, is scrubbed.
				mustNotLeak(t, err, "s3cret-value")
			}
		})
	}
}

// Regression: issue 14 item 22.
// SVC_OAUTHCLIENT_AUTH_METHOD chooses how the secret is sent; a bad value
// and a code choice that disagrees fail New with a ConfigError naming it.
func TestAuthMethodFromEnvironment(t *testing.T) {
	cases := []struct {
		name    string
		value   string
		opts    []oauthclient.Option
		methods []string // listed in the metadata
		post    bool     // the secret travels in the body
		wantErr string   // substring of the ConfigError's problem; "" for none
	}{
		{"post", "post", nil, []string{"client_secret_basic", "client_secret_post"}, true, ""},
		{"basic over a post-only server", "basic", nil, []string{"client_secret_post"}, false, ""},
		{"metadata names accepted", "CLIENT_SECRET_POST", nil, nil, true, ""},
		{"auto follows the metadata", "auto", nil, []string{"client_secret_post"}, true, ""},
		{"code Auto lets the environment choose", "post", []oauthclient.Option{oauthclient.Secret(oauthclient.Auto)}, nil, true, ""},
		{"code agrees", "post", []oauthclient.Option{oauthclient.Secret(oauthclient.Post)}, nil, true, ""},
		{"unknown value", "client_secret_jwt", nil, nil, false, "want basic, post, auto"},
		{"code disagrees", "post", []oauthclient.Option{oauthclient.Secret(oauthclient.Basic)}, nil, false, "oauthclient.Secret(oauthclient.Basic)"},
		{"code uses a private key", "basic", []oauthclient.Option{oauthclient.PrivateKey(rsaKeyPEM(t))}, nil, false, "private_key_jwt"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newTokenServer(t)
			s.authMethods = tc.methods
			t.Setenv("SVC_OAUTHCLIENT_ISSUER", s.URL)
			t.Setenv("SVC_OAUTHCLIENT_CLIENT_ID", "env-id")
			t.Setenv("SVC_OAUTHCLIENT_CLIENT_SECRET", "env-s3cret")
			t.Setenv("SVC_OAUTHCLIENT_AUTH_METHOD", tc.value)
			c, err := oauthclient.New(append([]oauthclient.Option{oauthclient.Clock(newClock().Now)}, tc.opts...)...)
			if tc.wantErr != "" {
				var ce *oauthclient.ConfigError
				if !errors.As(err, &ce) || ce.Setting != "SVC_OAUTHCLIENT_AUTH_METHOD" || !strings.Contains(ce.Problem, tc.wantErr) {
					t.Fatalf("err = %v, want a ConfigError for SVC_OAUTHCLIENT_AUTH_METHOD saying %q", err, tc.wantErr)
				}
				mustNotLeak(t, err, "env-s3cret")
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Open(context.Background()); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { c.Close(context.Background()) })
			mustToken(t, newCC(t, c, "api"))
			f, h := s.form(0), s.header(0)
			gotPost := f.Get("client_secret") == "env-s3cret" && h.Get("Authorization") == ""
			gotBasic := !f.Has("client_secret") && strings.HasPrefix(h.Get("Authorization"), "Basic ")
			if tc.post && !gotPost || !tc.post && !gotBasic {
				t.Fatalf("want post=%v, got form %v Authorization %q", tc.post, f, h.Get("Authorization"))
			}
		})
	}
}

func TestAuthMethodIgnoredWithoutEnv(t *testing.T) {
	t.Setenv("SVC_OAUTHCLIENT_AUTH_METHOD", "bogus")
	s := newTokenServer(t)
	c := newClient(t, s, newClock(), oauthclient.Secret(oauthclient.Basic))
	mustToken(t, newCC(t, c, "api"))
	if !strings.HasPrefix(s.header(0).Get("Authorization"), "Basic ") {
		t.Fatal("WithoutEnv did not keep the code's method")
	}
}
