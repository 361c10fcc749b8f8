package interop_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/test/internal/oidcprovider"
)

// RFC 9470 step-up with tokens a real provider signed: node-oidc-provider
// writes `acr` and `auth_time` (a NumericDate) into its JWT access tokens,
// and the gate judges them as it judges the test issuer's. The login's age
// is an hour away from the limit, so clock drift cannot decide a case.
func TestStepUpWithARealProvider(t *testing.T) {
	p := oidcprovider.Start(t, oidcprovider.Options{})
	v := openDiscover(t, p)
	g, err := authn.New(v)
	if err != nil {
		t.Fatal(err)
	}
	r := chi.NewRouter()
	r.With(authn.Require("read"), authn.RequireACR("phr"), authn.MaxAge(time.Hour)).Get("/pay", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, "paid")
	})
	h, err := g.Handler(r)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)

	const challenge = `Bearer error="insufficient_user_authentication", error_description="A different authentication level is required", acr_values="phr", max_age="3600"`
	for _, c := range []struct {
		name   string
		acr    string
		age    time.Duration
		status int
	}{
		{"a recent phr login", "phr", time.Minute, 200},
		{"a password login", "pwd", time.Minute, 401},
		{"an old phr login", "phr", 2 * time.Hour, 401},
		{"no acr", "", time.Minute, 401},
	} {
		req, _ := http.NewRequest("GET", srv.URL+"/pay", nil)
		req.Header.Set("Authorization", "Bearer "+p.LoginToken(t, "read", c.acr, c.age))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.status || (c.status == 401 && resp.Header.Get("WWW-Authenticate") != challenge) {
			t.Errorf("%s: %d %q", c.name, resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
		}
	}
}
