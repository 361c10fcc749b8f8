package authn_test

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/bearer"
	svcerrors "github.com/svckit/svc/modules/errors"
	"github.com/svckit/svc/modules/oauthclient"
	"github.com/svckit/svc/secret"
)

const (
	gateOpaque = "opaque-gate-token-0123456789abcdef"
	gateIssuer = "https://idp.test"
	gateAud    = "https://api.test"
)

// introspectingGateVerifier is a verifier introspecting at an endpoint
// answering with answer; it counts the requests.
func introspectingGateVerifier(t *testing.T, answer http.HandlerFunc, opts ...bearer.VerifierOption) (*bearer.JWTVerifier, *atomic.Int32) {
	t.Helper()
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		answer(w, r)
	}))
	t.Cleanup(srv.Close)
	client, err := oauthclient.New(oauthclient.WithoutEnv(), oauthclient.TokenEndpoint(srv.URL+"/token"),
		oauthclient.ClientID("rs"), oauthclient.ClientSecret(secret.String("client-secret-value")))
	if err != nil {
		t.Fatal(err)
	}
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	v := bearer.KeySet(gateIssuer, gateAud, []crypto.PublicKey{&key.PublicKey},
		append([]bearer.VerifierOption{bearer.Introspect(srv.URL+"/introspect", client)}, opts...)...)
	if err := v.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close(context.Background()) })
	return v, &n
}

func answerJSON(status int, body any) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(body)
	}
}

func activeGateAnswer() map[string]any {
	return map[string]any{"active": true, "iss": gateIssuer, "aud": gateAud, "sub": "alice",
		"scope": "read admin", "exp": time.Now().Add(time.Hour).Unix(), "token_type": "Bearer"}
}

// Issue 20: opaque tokens through the gate on chi and ServeMux: admitted,
// scopes enforced, inactive refused 401, and every failure to introspect
// (5xx, bad JSON, timeout) answered 503 introspection-unavailable with
// Retry-After, no challenge, never counted toward bans.
func TestGateIntrospection(t *testing.T) {
	hang := func(w http.ResponseWriter, r *http.Request) {
		// The body read, the server notices the client leave.
		io.Copy(io.Discard, r.Body)
		<-r.Context().Done()
	}
	tests := []struct {
		name      string
		answer    http.HandlerFunc
		path      string
		status    int
		kind      string
		challenge string
	}{
		{"active", answerJSON(200, activeGateAnswer()), "/me", 200, "", ""},
		{"active, scope held", answerJSON(200, activeGateAnswer()), "/admin", 200, "", ""},
		{"active, scope missing", answerJSON(200, map[string]any{"active": true, "iss": gateIssuer, "aud": gateAud,
			"sub": "bob", "exp": time.Now().Add(time.Hour).Unix()}), "/admin", 403, "insufficient-scope",
			`Bearer error="insufficient_scope", scope="admin"`},
		{"inactive", answerJSON(200, map[string]any{"active": false}), "/me", 401, "token-rejected", `Bearer error="invalid_token"`},
		{"status 500", answerJSON(500, map[string]any{"error": "oops"}), "/me", 503, "introspection-unavailable", ""},
		{"bad JSON", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("{not json")) }, "/me", 503, "introspection-unavailable", ""},
		{"timeout", hang, "/me", 503, "introspection-unavailable", ""},
	}
	routers := map[string]func() http.Handler{
		"chi":      func() http.Handler { return exampleRouter() },
		"ServeMux": func() http.Handler { return exampleMux() },
	}
	for rname, router := range routers {
		for _, tt := range tests {
			t.Run(rname+"/"+tt.name, func(t *testing.T) {
				v, n := introspectingGateVerifier(t, tt.answer, bearer.FetchTimeout(200*time.Millisecond))
				srv := gateServer(t, svcerrors.New(), router(), v)
				for range 2 {
					got := do(t, srv, "GET", tt.path, bearerHeader(gateOpaque), "")
					if got.status != tt.status {
						t.Fatalf("status %d, want %d: %s", got.status, tt.status, got.body)
					}
					if c := got.header.Get("WWW-Authenticate"); c != tt.challenge {
						t.Fatalf("WWW-Authenticate %q, want %q", c, tt.challenge)
					}
					if tt.kind != "" && got.json["type"] != docs+tt.kind {
						t.Fatalf("type %v, want %s", got.json["type"], tt.kind)
					}
					if tt.status == 503 && (got.header.Get("Retry-After") != "5" || got.json["retry_after"] != float64(5)) {
						t.Fatalf("Retry-After %q, body %s", got.header.Get("Retry-After"), got.body)
					}
					if tt.kind == "token-rejected" && got.json["reason"] != "inactive" {
						t.Fatalf("reason %v", got.json["reason"])
					}
					if strings.Contains(got.body, gateOpaque) {
						t.Fatal("the body quotes the token")
					}
				}
				want := int32(1) // the second request is answered from the cache
				if tt.status == 503 {
					want = 2 // a failure is not cached
				}
				if got := n.Load(); got != want {
					t.Fatalf("%d introspections, want %d", got, want)
				}
			})
		}
	}
}

// The token never reaches a log line, a security record or a metric
// label; the 503's cause is logged once a minute, naming the endpoint
// and the status, and each request is counted by outcome.
func TestGateIntrospectionTelemetryHoldsNoToken(t *testing.T) {
	m := installMetrics(t)
	core, logs := observer.New(zapcore.DebugLevel)
	failing := answerJSON(502, nil)
	v, _ := introspectingGateVerifier(t, failing)
	g, err := authn.New(v)
	if err != nil {
		t.Fatal(err)
	}
	g.SetLogger(zap.New(core))
	h, err := g.Handler(exampleRouter())
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(svcerrors.New().Middleware(h))
	t.Cleanup(srv.Close)
	for i := range 3 {
		if got := do(t, srv, "GET", "/me", bearerHeader(fmt.Sprintf("%s-%d", gateOpaque, i)), ""); got.status != 503 {
			t.Fatalf("status %d", got.status)
		}
	}
	causes := logs.FilterMessage("authn: answering 503, token introspection unavailable").AllUntimed()
	if len(causes) != 1 || !strings.Contains(causes[0].ContextMap()["error"].(string), "status 502") {
		t.Fatalf("cause lines %v", causes)
	}
	for _, e := range logs.AllUntimed() {
		line := e.Message + fmt.Sprint(e.ContextMap())
		if strings.Contains(line, gateOpaque) || strings.Contains(line, "client-secret-value") {
			t.Fatalf("a log line holds a secret: %s", line)
		}
	}
	if got := m.sum(t, "svc.authn.introspections", attribute.String("svc.outcome", "failed")); got != 3 {
		t.Fatalf("failed introspections counted %d, want 3", got)
	}
	if labels := m.labels(t); strings.Contains(labels, gateOpaque) {
		t.Fatalf("a metric label holds the token: %s", labels)
	}
}

// labels prints every attribute of every data point collected.
func (m metricReader) labels(t *testing.T) string {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := m.r.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, sm := range rm.ScopeMetrics {
		for _, md := range sm.Metrics {
			if d, ok := md.Data.(metricdata.Sum[int64]); ok {
				for _, p := range d.DataPoints {
					fmt.Fprintln(&b, md.Name, p.Attributes.Encoded(attribute.DefaultEncoder()))
				}
			}
		}
	}
	return b.String()
}
