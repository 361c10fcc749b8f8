package authn

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/svckit/svc/modules/authn/bearer"
)

func okHandler(w http.ResponseWriter, r *http.Request) {
	p, _ := PrincipalFrom(r.Context())
	_, _ = io.WriteString(w, "hello "+p.Subject)
}

// getBearer GETs url with token until the answer is not the 503 of keys
// still loading, or deadline passes.
func getBearer(t *testing.T, url, token string, deadline time.Time) (*http.Response, string) {
	t.Helper()
	for {
		req, _ := http.NewRequest(http.MethodGet, url, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusServiceUnavailable || time.Now().After(deadline) {
			return resp, string(body)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Regression: issue 14 item 14.
func TestTheKeysUnavailable503LogsWhyOncePerMinute(t *testing.T) {
	core, logs := observer.New(zap.InfoLevel)
	// A gate whose verifier nobody opened: the app forgot its lifecycle.
	g, err := New(bearer.New("https://idp.example", "orders"))
	if err != nil {
		t.Fatal(err)
	}
	g.setLogger(zap.New(core))
	srv := httptest.NewServer(g.wrap(http.HandlerFunc(okHandler), nil))
	t.Cleanup(srv.Close)
	// A well-formed ES256 JWS: the verifier looks its key up, and has none.
	b64 := base64.RawURLEncoding.EncodeToString
	tok := b64([]byte(`{"alg":"ES256","kid":"k"}`)) + "." + b64([]byte(`{"iss":"https://idp.example"}`)) + "." + b64(make([]byte, 64))
	for range 3 {
		resp, body := getBearer(t, srv.URL+"/me", tok, time.Now())
		if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body, string(KindKeysUnavailable)) ||
			resp.Header.Get("Content-Type") != "application/problem+json" {
			t.Fatalf("%d %s %v", resp.StatusCode, body, resp.Header)
		}
	}
	why := logs.FilterMessage("authn: answering 503, signing keys unavailable").All()
	if len(why) != 1 || !strings.Contains(fmt.Sprint(why[0].ContextMap()["error"]), "was not opened") {
		t.Fatalf("want one line saying why, got %v", logs.All())
	}
	if err := g.verifier.(*bearer.JWTVerifier).Ready(); !errors.Is(err, bearer.ErrKeysUnavailable) {
		t.Fatalf("Ready() = %v, want ErrKeysUnavailable", err)
	}
}
