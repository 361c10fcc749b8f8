package fxsvc_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"go.uber.org/fx"

	"github.com/svckit/svc/devissuer"
	"github.com/svckit/svc/fxsvc"
)

// Issue 20: SVC_AUTHN_ISSUERS trusts several issuers, each with its own
// audience (or SVC_AUTHN_AUDIENCE), behind one gate.
func TestSeveralIssuersFromTheEnvironment(t *testing.T) {
	var issuers []*devissuer.Issuer
	for range 2 {
		iss, err := devissuer.Start(devissuer.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = iss.Close() })
		issuers = append(issuers, iss)
	}
	t.Setenv("SVC_AUTHN_ISSUER", "")
	t.Setenv("SVC_AUTHN_AUDIENCE", issuers[1].Audience)
	// The first entry names its audience, the second takes SVC_AUTHN_AUDIENCE.
	t.Setenv("SVC_AUTHN_ISSUERS", issuers[0].URL+" "+issuers[0].Audience+" , "+issuers[1].URL)
	r := chi.NewRouter()
	r.Get("/me", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "me") })
	app, srv := startApp(t, fx.NopLogger, fxsvc.Errors(), fxsvc.Authn(nil), fx.Supply(r), fxsvc.Serve(fxsvc.Addr("127.0.0.1:0")))
	defer app.RequireStop()
	for i, iss := range issuers {
		tok, err := iss.Mint(devissuer.Token{Subject: "alice"})
		if err != nil {
			t.Fatal(err)
		}
		if status, body, _ := getUntilKeysLoad(t, "http://"+srv.Addr()+"/me", tok); status != http.StatusOK || body != "me" {
			t.Fatalf("issuer %d's token: %d %s", i+1, status, body)
		}
	}
}

func TestSeveralIssuersFromTheEnvironmentRefused(t *testing.T) {
	for _, tc := range []struct {
		name, issuer, issuers, audience string
		want                            []string
	}{
		{"both variables", "https://a.example", "https://b.example api", "api", []string{"SVC_AUTHN_ISSUER and SVC_AUTHN_ISSUERS are both set"}},
		{"three words", "", "https://a.example api extra", "", []string{"SVC_AUTHN_ISSUERS entry 1 has 3 words", `"ISSUER AUDIENCE"`}},
		{"an empty entry", "", "https://a.example api,,https://b.example api", "", []string{"SVC_AUTHN_ISSUERS entry 2 has 0 words"}},
		{"no audience anywhere", "", "https://a.example", "", []string{"SVC_AUTHN_ISSUERS entry 1", "audience is empty"}},
		{"a bad issuer, its password masked", "", "https://user:pw-1@a.example api, http://b.example api", "", []string{"entry 1", "https://***@a.example", "carries user information", "entry 2", "must be https"}},
		{"one issuer twice", "", "https://a.example api, https://a.example other", "", []string{"SVC_AUTHN_ISSUERS", "names the issuer", "twice"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("SVC_AUTHN_ISSUER", tc.issuer)
			t.Setenv("SVC_AUTHN_ISSUERS", tc.issuers)
			t.Setenv("SVC_AUTHN_AUDIENCE", tc.audience)
			err := buildGate(fxsvc.Authn(nil))
			if err == nil {
				t.Fatal("the app was built")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q: %v", w, err)
				}
			}
			if strings.Contains(err.Error(), "pw-1") {
				t.Errorf("the error carries the password: %v", err)
			}
		})
	}
}
