package oauthclient_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	svcerrors "github.com/svckit/svc/modules/errors"
	"github.com/svckit/svc/modules/oauthclient"
)

// Regression: issue 14 item 20.
// A handler that returned an outbound token failure answered 500. Through
// svcerrors, an UnavailableError now answers 503 upstream-token-unavailable
// with retry_after and Retry-After, the refusals 502 upstream-token-refused;
// a local misconfiguration and a closed client stay 500 (logged). The body
// never repeats the server's answer, the secret or the error's message.
func TestTokenFailuresAnswerTheirKind(t *testing.T) {
	cases := []struct {
		name     string
		answer   *answer // the token server's answer; nil: err is returned as it is
		err      error
		status   int
		anchor   string
		retryMin int // bounds of Retry-After in seconds; 0: absent
		retryMax int
	}{
		{"503 with Retry-After", &answer{status: 503, header: map[string]string{"Retry-After": "120"}, body: leaky}, nil, 503, "upstream-token-unavailable", 100, 120},
		{"server error", &answer{status: 500, body: leaky}, nil, 503, "upstream-token-unavailable", 1, 10},
		{"invalid_client", &answer{status: 401, body: `{"error":"invalid_client","error_description":"` + leaky + `"}`}, nil, 502, "upstream-token-refused", 0, 0},
		{"unauthorized_client", &answer{status: 400, body: `{"error":"unauthorized_client"}`}, nil, 502, "upstream-token-refused", 0, 0},
		{"token refused", &answer{status: 400, body: `{"error":"invalid_scope","error_description":"` + leaky + `"}`}, nil, 502, "upstream-token-refused", 0, 0},
		{"unavailable, Retry-After only", nil, &oauthclient.UnavailableError{Reason: oauthclient.ReasonRetryAfter, Status: 429, RetryAfter: 30 * time.Second}, 503, "upstream-token-unavailable", 30, 30},
		{"discovery", nil, &oauthclient.DiscoveryError{Issuer: "https://as.example", Reason: leaky}, 502, "upstream-token-refused", 0, 0},
		{"config: permanent, 500", nil, &oauthclient.ConfigError{Setting: "SVC_OAUTHCLIENT_CLIENT_SECRET_FILE", Problem: leaky}, 500, "", 0, 0},
		{"closed: 500", nil, oauthclient.ErrClosed, 500, "", 0, 0},
	}
	formats := []struct {
		name string
		res  *svcerrors.Responses
	}{
		{"rfc9457", svcerrors.New()},
		{"tmf630", svcerrors.NewTMF("SVC", svcerrors.KindDocs)},
	}
	for _, f := range formats {
		for _, tc := range cases {
			t.Run(f.name+"/"+tc.name, func(t *testing.T) {
				api := newAPI(t, nil)
				var call func() error
				if tc.answer != nil {
					s := newTokenServer(t)
					s.then(*tc.answer)
					p := newCC(t, newClient(t, s, newClock()), "api")
					call = func() error {
						resp, err := p.Client().Get(api.URL)
						if err == nil {
							resp.Body.Close()
						}
						return err
					}
				} else {
					call = func() error { return tc.err }
				}
				mux := http.NewServeMux()
				mux.Handle("GET /billing", svcerrors.Handler(func(http.ResponseWriter, *http.Request) error { return call() }))
				srv := httptest.NewServer(f.res.Middleware(mux))
				t.Cleanup(srv.Close)

				resp, err := http.Get(srv.URL + "/billing")
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != tc.status {
					t.Fatalf("status %d, want %d: %s", resp.StatusCode, tc.status, body)
				}
				if got := resp.Header.Get("Content-Type"); got != f.res.MediaType() {
					t.Errorf("Content-Type %q", got)
				}
				ra := resp.Header.Get("Retry-After")
				if tc.retryMax == 0 {
					if ra != "" {
						t.Errorf("Retry-After %q on a failure retrying cannot help", ra)
					}
				} else if n, err := strconv.Atoi(ra); err != nil || n < tc.retryMin || n > tc.retryMax {
					t.Errorf("Retry-After %q, want %d..%d", ra, tc.retryMin, tc.retryMax)
				}
				var m map[string]any
				if err := json.Unmarshal(body, &m); err != nil {
					t.Fatalf("body %s: %v", body, err)
				}
				want := tc.anchor
				if f.name == "rfc9457" {
					wantType := "about:blank"
					if want != "" {
						wantType = "https://github.com/svckit/svc/blob/main/docs/errors.md#" + want
					}
					if m["type"] != wantType {
						t.Errorf("type %v, want %s", m["type"], wantType)
					}
					if _, has := m["retry_after"]; has != (tc.retryMax > 0) {
						t.Errorf("retry_after present = %v: %s", has, body)
					}
				} else if want != "" && m["code"] != "SVC-"+strings.ToUpper(want) {
					t.Errorf("code %v", m["code"])
				}
				for _, word := range []string{"LEAKED", "s3cret", "invalid_client", "invalid_scope", "unauthorized_client", "SVC_OAUTHCLIENT", "as.example"} {
					if strings.Contains(string(body), word) {
						t.Errorf("body repeats %q: %s", word, body)
					}
				}
			})
		}
	}
}

// The errors are named without this package importing svcerrors; each
// answers the kind docs/errors.md gives it, wrapped or not.
func TestErrorKindsAreKnownToSvcerrors(t *testing.T) {
	for _, tc := range []struct {
		err    error
		anchor string
	}{
		{&oauthclient.UnavailableError{}, "upstream-token-unavailable"},
		{&oauthclient.ClientRejectedError{}, "upstream-token-refused"},
		{&oauthclient.TokenRefusedError{}, "upstream-token-refused"},
		{&oauthclient.DiscoveryError{}, "upstream-token-refused"},
		{&oauthclient.CircuitOpenError{RetryAfter: time.Second}, "circuit-breaker-open"},
	} {
		for _, err := range []error{tc.err, fmt.Errorf("billing: %w", tc.err)} {
			if d, ok := svcerrors.Describe(err); !ok || d.Anchor != tc.anchor {
				t.Errorf("%T is described as %q (known %v), want %q", tc.err, d.Anchor, ok, tc.anchor)
			}
		}
	}
	for _, err := range []error{context.Canceled, &oauthclient.ConfigError{}, oauthclient.ErrClosed} {
		if _, ok := svcerrors.Describe(err); ok {
			t.Errorf("%v must stay unknown (a logged 500)", err)
		}
	}
	ended := &oauthclient.UnavailableError{Until: time.Now().Add(-time.Second), RetryAfter: time.Minute}
	if d, _ := svcerrors.Describe(ended); d.RetryAfter != 0 {
		t.Errorf("a remembered failure that has ended hints %v", d.RetryAfter)
	}
}
