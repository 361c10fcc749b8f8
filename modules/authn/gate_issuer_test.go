package authn_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/authntest"
	"github.com/svckit/svc/modules/authn/bearer"
	svcerrors "github.com/svckit/svc/modules/errors"
)

// points returns the attribute sets and values of a counter's data points.
func (m metricReader) points(t *testing.T, name string) map[attribute.Distinct]metricdata.DataPoint[int64] {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := m.r.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	out := map[attribute.Distinct]metricdata.DataPoint[int64]{}
	for _, sm := range rm.ScopeMetrics {
		for _, md := range sm.Metrics {
			if d, ok := md.Data.(metricdata.Sum[int64]); ok && md.Name == name {
				for _, p := range d.DataPoints {
					out[p.Attributes.Equivalent()] = p
				}
			}
		}
	}
	return out
}

func distinct(kvs ...attribute.KeyValue) attribute.Distinct {
	set := attribute.NewSet(kvs...)
	return set.Equivalent()
}

// hostPath is the label the gate gives an issuer URL: host and path.
func hostPath(issuer string) string {
	_, rest, _ := strings.Cut(issuer, "://")
	return rest
}

// Issue 20, several issuers: metrics and security records name the issuer
// that verified the token by its configured label (host and path, never
// the URL), on a success, on a signed token refused for its claims and on
// an authorization refusal; a token no issuer's keys verified names none.
func TestGateNamesTheIssuerInMetricsAndRecords(t *testing.T) {
	m := installMetrics(t)
	a := authntest.NewIssuer(t, authntest.WithAudience("api://orders"))
	b := authntest.NewIssuer(t, authntest.WithAudience("api://orders"))
	stranger := authntest.NewIssuer(t, authntest.WithAudience("api://orders"))
	v := bearer.Issuers(a.Discover(), b.Discover())
	openIssuers(t, v)
	o := observedGate(t, exampleRouter(), v)
	la, lb := hostPath(a.URL), hostPath(b.URL)

	for _, tc := range []struct {
		path, token string
		status      int
	}{
		{"/me", a.Token(), 200},
		{"/me", a.Token(authntest.Subject("other")), 200},
		{"/me", b.Token(), 200},
		{"/me", a.Token(authntest.Expires(time.Now().Add(-time.Hour))), 401},
		{"/admin", b.Token(authntest.Scopes("read")), 403},
		{"/me", stranger.Token(authntest.Claim("iss", a.URL)), 401}, // a's iss, not a's keys
		{"/me", stranger.Token(), 401},                              // an issuer nobody trusts
	} {
		if got := do(t, o.srv, "GET", tc.path, bearerHeader(tc.token), ""); got.status != tc.status {
			t.Fatalf("%s: %d %s, want %d", tc.path, got.status, got.body, tc.status)
		}
	}

	s := func(k, v string) attribute.KeyValue { return attribute.String(k, v) }
	want := map[string][]struct {
		attrs []attribute.KeyValue
		n     int64
	}{
		"svc.authentication.attempts": {
			{[]attribute.KeyValue{s("svc.outcome", "success"), s("svc.authn.issuer", la)}, 2},
			{[]attribute.KeyValue{s("svc.outcome", "success"), s("svc.authn.issuer", lb)}, 2}, // /admin's token verified
			{[]attribute.KeyValue{s("svc.outcome", "refused"), s("error.type", "expired"), s("http.route", "/me"), s("svc.authn.issuer", la)}, 1},
			{[]attribute.KeyValue{s("svc.outcome", "refused"), s("error.type", "unknown-key"), s("http.route", "/me")}, 1},
			{[]attribute.KeyValue{s("svc.outcome", "refused"), s("error.type", "issuer"), s("http.route", "/me")}, 1},
		},
		"svc.authorization.refusals": {
			{[]attribute.KeyValue{s("error.type", "insufficient-scope"), s("http.route", "/admin"), s("svc.authn.issuer", lb)}, 1},
		},
	}
	for name, rows := range want {
		got := m.points(t, name)
		if len(got) != len(rows) {
			t.Errorf("%s: %d series, want %d: %v", name, len(got), len(rows), got)
		}
		for _, row := range rows {
			p, ok := got[distinct(row.attrs...)]
			if !ok || p.Value != row.n {
				t.Errorf("%s%v = %d (found %v), want %d", name, row.attrs, p.Value, ok, row.n)
			}
		}
	}

	byWord := map[string]map[string]any{}
	for _, rec := range o.security() {
		f := rec.ContextMap()
		byWord[f["error.type"].(string)] = f
	}
	for word, issuer := range map[string]any{"expired": la, "insufficient-scope": lb, "unknown-key": nil, "issuer": nil} {
		f, ok := byWord[word]
		if !ok {
			t.Errorf("no record of %s: %v", word, byWord)
			continue
		}
		if got := f["svc.authn.issuer"]; got != issuer {
			t.Errorf("record of %s names issuer %v, want %v", word, got, issuer)
		}
	}
	for _, sp := range o.spans.Ended() {
		for _, ev := range sp.Events() {
			if hasAttr(ev.Attributes, "error.type", "expired") && !hasAttr(ev.Attributes, "svc.authn.issuer", la) {
				t.Errorf("span event of expired names no issuer: %v", ev.Attributes)
			}
		}
	}
}

// One issuer carries its label too, so a dashboard keeps its attributes
// when a second issuer is added; a verifier of the app's own names no
// issuer (a token's iss is never a label).
func TestGateIssuerLabelWithOneIssuerAndWithAnAppVerifier(t *testing.T) {
	s := func(k, v string) attribute.KeyValue { return attribute.String(k, v) }
	t.Run("one issuer", func(t *testing.T) {
		m := installMetrics(t)
		a := authntest.NewIssuer(t)
		v := a.Discover()
		openIssuers(t, v)
		srv := gateServer(t, nil, exampleRouter(), v)
		if got := do(t, srv, "GET", "/me", bearerHeader(a.Token()), ""); got.status != 200 {
			t.Fatalf("%d %s", got.status, got.body)
		}
		if _, ok := m.points(t, "svc.authentication.attempts")[distinct(s("svc.outcome", "success"), s("svc.authn.issuer", hostPath(a.URL)))]; !ok {
			t.Fatalf("no success naming %s: %v", hostPath(a.URL), m.points(t, "svc.authentication.attempts"))
		}
	})
	t.Run("an app's verifier", func(t *testing.T) {
		m := installMetrics(t)
		srv := gateServer(t, nil, exampleRouter(), newFake())
		do(t, srv, "GET", "/me", bearerHeader("alice-token"), "")
		do(t, srv, "GET", "/admin", bearerHeader("alice-token"), "")
		for _, name := range []string{"svc.authentication.attempts", "svc.authorization.refusals"} {
			pts := m.points(t, name)
			if len(pts) == 0 {
				t.Fatalf("%s: no points", name)
			}
			for _, p := range pts {
				if _, ok := p.Attributes.Value("svc.authn.issuer"); ok {
					t.Errorf("%s names an issuer: %v", name, p.Attributes)
				}
			}
		}
	})
}

// openIssuers opens the set of verifiers v and waits for every issuer's
// keys; it closes when the test ends.
func openIssuers(t *testing.T, v bearer.Verifier) {
	t.Helper()
	c := v.(interface {
		Open(context.Context) error
		Close(context.Context) error
	})
	if err := c.Open(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	if err := authntest.WaitReady(v.(interface{ Ready() error }), 10*time.Second); err != nil {
		t.Fatal(err)
	}
}

// The protected-resource metadata (RFC 9728) lists every issuer.
func TestIssuersAreTheMetadatasAuthorizationServers(t *testing.T) {
	a := authntest.NewIssuer(t)
	b := authntest.NewIssuer(t)
	v := bearer.Issuers(b.Discover(), a.Discover())
	openIssuers(t, v)
	srv := gateServer(t, svcerrors.New(), exampleRouter(), v, authn.Resource("https://api.example.com"))
	got := do(t, srv, "GET", "/.well-known/oauth-protected-resource", nil, "")
	var doc struct {
		AuthorizationServers []string `json:"authorization_servers"`
	}
	if err := json.Unmarshal([]byte(got.body), &doc); err != nil || got.status != 200 {
		t.Fatalf("%d %s %v", got.status, got.body, err)
	}
	want := []string{a.URL, b.URL}
	if a.URL > b.URL {
		want = []string{b.URL, a.URL}
	}
	if strings.Join(doc.AuthorizationServers, " ") != strings.Join(want, " ") {
		t.Fatalf("authorization_servers %v, want %v (sorted)", doc.AuthorizationServers, want)
	}
	// And the gate admits each issuer's callers.
	for _, iss := range []*authntest.Issuer{a, b} {
		h := bearerHeader(iss.Token())
		if got := do(t, srv, "GET", "/me", h, ""); got.status != 200 {
			t.Fatalf("%s's caller: %d %s", iss.URL, got.status, got.body)
		}
	}
}
