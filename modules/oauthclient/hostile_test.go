package oauthclient_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/svckit/svc/modules/oauthclient"
)

// Token answers are read up to 1 MiB: a bigger one is not held in memory
// and reads as an answer without a token (2xx) or without an error code.
func TestOversizedAnswersAreNotRead(t *testing.T) {
	huge := `{"access_token":"` + strings.Repeat("a", 2<<20) + `","error":"invalid_client"}`
	t.Run("2xx", func(t *testing.T) {
		s := newTokenServer(t)
		s.then(answer{status: 200, body: huge})
		_, err := newCC(t, newClient(t, s, newClock()), "a").Token(context.Background())
		var ue *oauthclient.UnavailableError
		if !errors.As(err, &ue) || ue.Reason != oauthclient.ReasonBadResponse {
			t.Fatalf("err = %v, want UnavailableError %s", err, oauthclient.ReasonBadResponse)
		}
	})
	t.Run("4xx", func(t *testing.T) {
		s := newTokenServer(t)
		s.then(answer{status: 400, body: huge})
		_, err := newCC(t, newClient(t, s, newClock()), "a").Token(context.Background())
		var tr *oauthclient.TokenRefusedError
		if !errors.As(err, &tr) || tr.Code != "" {
			t.Fatalf("err = %v, want TokenRefusedError without a code", err)
		}
	})
}

// A server that sends the status line, then trickles the body past the
// timeout, timed out: the error says so (not a server error), and the fetch
// is not retried.
func TestBodyTricklingPastTheTimeoutIsATimeout(t *testing.T) {
	var requests atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte(`{"access_token":"`))
		for {
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(5 * time.Millisecond):
				_, _ = w.Write([]byte("a"))
			}
		}
	}))
	t.Cleanup(srv.Close)
	c, err := oauthclient.New(oauthclient.WithoutEnv(), oauthclient.TokenEndpoint(srv.URL+"/token"),
		oauthclient.ClientID("svc-client"), oauthclient.ClientSecret("s3cret-value"), oauthclient.Timeout(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	_, err = newCC(t, c, "a").Token(context.Background())
	var ue *oauthclient.UnavailableError
	if !errors.As(err, &ue) || ue.Reason != oauthclient.ReasonTimeout || oauthclient.ErrorType(err) != "timeout" {
		t.Fatalf("err = %v, want UnavailableError %s", err, oauthclient.ReasonTimeout)
	}
	if n := requests.Load(); n != 1 {
		t.Fatalf("requests = %d: a timeout was retried", n)
	}
}

// An issuer URL may carry user information (a proxy's Basic credentials);
// no error repeats it, as no error repeats a configured URL.
func TestDiscoveryErrorHidesTheIssuersCredentials(t *testing.T) {
	s := newTokenServer(t)
	s.issuerName = "https://other.example"
	issuer := strings.Replace(s.URL, "http://", "http://proxy-user:pw-SECRET@", 1)
	c, err := oauthclient.New(oauthclient.WithoutEnv(), oauthclient.Issuer(issuer),
		oauthclient.ClientID("svc-client"), oauthclient.ClientSecret("s3cret-value"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	err = c.Open(context.Background())
	var de *oauthclient.DiscoveryError
	if !errors.As(err, &de) {
		t.Fatalf("Open: %v, want a DiscoveryError", err)
	}
	mustNotLeak(t, err, "pw-SECRET", "proxy-user")
	if !strings.Contains(err.Error(), strings.TrimPrefix(s.URL, "http://")) {
		t.Fatalf("%v does not name the issuer's host", err)
	}
}
