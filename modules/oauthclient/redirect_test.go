package oauthclient_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// RFC 6750 §5.3: a client MUST NOT leak a bearer token to unintended
// parties. net/http drops a caller's Authorization header when a redirect
// leads to another host; the pattern's token is not sent there either. A
// redirect within the host keeps it.
func TestRedirectToAnotherHostCarriesNoToken(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]string{}
	record := func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen[r.Host+r.URL.Path] = r.Header.Get("Authorization")
		mu.Unlock()
	}
	other := httptest.NewServer(http.HandlerFunc(record))
	t.Cleanup(other.Close)
	// The same listener under another name: another host to the client.
	otherHost := strings.Replace(other.URL, "127.0.0.1", "localhost", 1)
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/away":
			http.Redirect(w, r, otherHost+"/stolen", http.StatusFound)
		case "/within":
			http.Redirect(w, r, "/landed", http.StatusFound)
		default:
			record(w, r)
		}
	}))
	t.Cleanup(api.Close)
	s := newTokenServer(t)
	hc := newCC(t, newClient(t, s, newClock()), "api").Client()

	do(t, hc, http.MethodGet, api.URL+"/away", nil)
	do(t, hc, http.MethodGet, api.URL+"/within", nil)
	mu.Lock()
	defer mu.Unlock()
	if got, ok := seen[strings.TrimPrefix(otherHost, "http://")+"/stolen"]; !ok || got != "" {
		t.Errorf("the other host got Authorization %q (reached: %v)", got, ok)
	}
	if got := seen[strings.TrimPrefix(api.URL, "http://")+"/landed"]; got != "Bearer tok-1" {
		t.Errorf("a redirect within the host got Authorization %q", got)
	}
}
