package oauthclient_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/svckit/svc/modules/oauthclient"
)

// SVC_..._<NAME>_RESILIENCE=on turns Resilience{} on from the
// environment: an API that fails once with 503 is asked again; a bad
// value is refused naming the variable.
func TestResilienceFromTheEnvironment(t *testing.T) {
	var hits atomic.Int64
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hits.Add(1) == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	t.Cleanup(api.Close)
	s := newTokenServer(t)
	c := newClient(t, s, newClock())

	for value, want := range map[string]int64{"on": 2, "off": 1, "": 1} {
		hits.Store(0)
		t.Setenv("SVC_CLIENTCREDENTIALS_BILLING_RESILIENCE", value)
		p, err := oauthclient.ClientCredentials("billing", oauthclient.WithClient(c))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := p.Client().Get(api.URL)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if hits.Load() != want {
			t.Errorf("RESILIENCE=%q: the API was asked %d times, want %d", value, hits.Load(), want)
		}
	}

	t.Setenv("SVC_CLIENTCREDENTIALS_BILLING_RESILIENCE", "always")
	_, err := oauthclient.ClientCredentials("billing", oauthclient.WithClient(c))
	var ce *oauthclient.ConfigError
	if !errors.As(err, &ce) || ce.Setting != "SVC_CLIENTCREDENTIALS_BILLING_RESILIENCE" {
		t.Fatalf("err = %v", err)
	}
}
