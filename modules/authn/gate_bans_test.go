package authn_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.uber.org/zap/zapcore"

	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/bans"
	"github.com/svckit/svc/modules/authn/bearer"
	"github.com/svckit/svc/modules/authn/flood"
)

// countingVerifier counts verifications, the cost a ban saves.
type countingVerifier struct {
	*fakeVerifier
	n      atomic.Int64
	forged atomic.Int64
	mu     sync.Mutex
}

func (c *countingVerifier) Verify(ctx context.Context, tok string) (bearer.Principal, error) {
	c.n.Add(1)
	if tok == "forged-token" {
		c.forged.Add(1)
	}
	c.mu.Lock() // the fake's own call counter is not atomic
	defer c.mu.Unlock()
	return c.fakeVerifier.Verify(ctx, tok)
}

func newCounting() *countingVerifier { return &countingVerifier{fakeVerifier: newFake()} }

func from(addr string, h http.Header) http.Header {
	if h == nil {
		h = http.Header{}
	}
	h = h.Clone()
	h.Set("X-Forwarded-For", addr)
	return h
}

func TestForgedTokensBanTheCaller(t *testing.T) {
	v := newCounting()
	b := bans.New(bans.Threshold(3), bans.Duration(time.Minute))
	o := observedGateBehind(t, []string{"127.0.0.1/32"}, exampleRouter(), v, authn.Bans(b))
	forger := from("198.51.100.66", bearerHeader("forged-token"))
	for i := 0; i < 3; i++ {
		if got := do(t, o.srv, "GET", "/me", forger, ""); got.status != 401 {
			t.Fatalf("forgery %d: %d", i, got.status)
		}
	}
	before := v.n.Load()
	for i := 0; i < 5; i++ {
		got := do(t, o.srv, "GET", "/me", from("198.51.100.66", bearerHeader("alice-token")), "")
		if got.status != 429 || got.json["type"] != docs+"client-banned" || got.header.Get("Retry-After") != "60" ||
			got.header.Get("WWW-Authenticate") != "" {
			t.Fatalf("banned caller: %d %v %s", got.status, got.header, got.body)
		}
	}
	if v.n.Load() != before {
		t.Fatal("a banned caller's tokens were verified")
	}
	var started, banned int
	for _, rec := range o.security() {
		f := rec.ContextMap()
		switch f["otel.event.name"] {
		case "svc.client_bans.started":
			started++
			if f["client.address"] != "198.51.100.66" || f["svc.client_bans.failures"] != int64(3) ||
				f["svc.client_bans.duration"] != float64(60) || f["svc.client_bans.name"] != "default" ||
				fmt.Sprint(f["event.category"]) != "[intrusion_detection]" || f["event.outcome"] != "success" ||
				fmt.Sprint(f["event.type"]) != "[denied]" || rec.Level != zapcore.WarnLevel || rec.LoggerName != "svc.security.events" {
				t.Errorf("ban record %v %v %q", rec.Level, f, rec.LoggerName)
			}
			if msg := rec.Message; !strings.Contains(msg, "198.51.100.66") || !strings.Contains(msg, "1m0s") || !strings.Contains(msg, "3 ") {
				t.Errorf("ban record message %q does not state address, duration and failures", msg)
			}
			if _, err := time.Parse(time.RFC3339, f["svc.client_bans.until"].(string)); err != nil {
				t.Errorf("until %v", f["svc.client_bans.until"])
			}
		default:
			if f["error.type"] == "client-banned" {
				banned++
			}
		}
	}
	if started != 1 || banned != 0 {
		t.Fatalf("%d ban records, %d banned-request records; want 1 and 0", started, banned)
	}
	// Another caller behind the same proxy is untouched.
	if got := do(t, o.srv, "GET", "/me", from("198.51.100.7", bearerHeader("alice-token")), ""); got.status != 200 {
		t.Fatalf("innocent caller: %d", got.status)
	}
}

func TestOnlyForgeriesCountTowardBans(t *testing.T) {
	b := bans.New(bans.Threshold(2))
	srv := gateServer(t, nil, exampleRouter(), newFake(), authn.Bans(b))
	for i := 0; i < 10; i++ {
		do(t, srv, "GET", "/me", bearerHeader("expired-token"), "")
		do(t, srv, "GET", "/me", bearerHeader("not a token"), "")
		do(t, srv, "GET", "/me", nil, "")
	}
	if b.Active() != 0 {
		t.Fatal("expired, malformed or missing tokens started a ban")
	}
}

func TestSpoofedForwardingFromAnUntrustedPeerIsIgnored(t *testing.T) {
	b := bans.New(bans.Threshold(2))
	srv := gateServerBehind(t, []string{"10.0.0.0/8"}, nil, exampleRouter(), newFake(), authn.Bans(b))
	// The peer (127.0.0.1) is not trusted: rotating X-Forwarded-For does not
	// dodge the ban.
	for i := 0; i < 2; i++ {
		do(t, srv, "GET", "/me", from(fmt.Sprintf("203.0.113.%d", i), bearerHeader("forged-token")), "")
	}
	if got := do(t, srv, "GET", "/me", from("203.0.113.99", bearerHeader("alice-token")), ""); got.status != 429 {
		t.Fatalf("spoofed address dodged the ban: %d", got.status)
	}
}

func TestFloodLimit(t *testing.T) {
	lim := flood.New(flood.Rate(0.001), flood.Burst(2))
	srv := gateServerBehind(t, []string{"127.0.0.1/32"}, nil, exampleRouter(), newFake(), authn.Flood(lim))
	// A valid token to URLs no route answers.
	for i := 0; i < 2; i++ {
		if got := do(t, srv, "GET", "/nope", from("192.0.2.1", bearerHeader("alice-token")), ""); got.status != 404 {
			t.Fatalf("unknown URL %d: %d", i, got.status)
		}
	}
	got := do(t, srv, "GET", "/nope", from("192.0.2.1", bearerHeader("alice-token")), "")
	if got.status != 429 || got.json["type"] != docs+"rate-limit-exceeded" || got.header.Get("Retry-After") == "" {
		t.Fatalf("flood: %d %s", got.status, got.body)
	}
	// Real routes are not the flood limit's business.
	if got := do(t, srv, "GET", "/me", from("192.0.2.1", bearerHeader("alice-token")), ""); got.status != 200 {
		t.Fatalf("route: %d", got.status)
	}
	// The app has a public route, so credential-less requests spend it too.
	for i := 0; i < 2; i++ {
		do(t, srv, "GET", "/me", from("192.0.2.2", nil), "")
	}
	if got := do(t, srv, "GET", "/me", from("192.0.2.2", nil), ""); got.status != 429 {
		t.Fatalf("credential-less flood: %d", got.status)
	}
}

func TestFloodSparesCredentialLessRequestsOnAnAppWithoutPublicRoutes(t *testing.T) {
	lim := flood.New(flood.Rate(0.001), flood.Burst(1))
	plain := gateServer(t, nil, newPlainChi(), newFake(), authn.Flood(lim))
	for i := 0; i < 5; i++ {
		if got := do(t, plain, "GET", "/me", nil, ""); got.status != 401 {
			t.Fatalf("%d: %d", i, got.status)
		}
	}
}

type metricReader struct{ r *sdkmetric.ManualReader }

func installMetrics(t *testing.T) metricReader {
	t.Helper()
	reader := sdkmetric.NewManualReader()
	prev := otel.GetMeterProvider()
	otel.SetMeterProvider(sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)))
	t.Cleanup(func() { otel.SetMeterProvider(prev) })
	return metricReader{reader}
}

// sum returns the value of a counter's data point whose attributes include want.
func (m metricReader) sum(t *testing.T, name string, want ...attribute.KeyValue) int64 {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := m.r.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	var total int64
	for _, sm := range rm.ScopeMetrics {
		for _, md := range sm.Metrics {
			if md.Name != name {
				continue
			}
			var points []metricdata.DataPoint[int64]
			switch d := md.Data.(type) {
			case metricdata.Sum[int64]:
				points = d.DataPoints
			case metricdata.Gauge[int64]:
				points = d.DataPoints
			}
		point:
			for _, p := range points {
				for _, kv := range want {
					if v, ok := p.Attributes.Value(kv.Key); !ok || v != kv.Value {
						continue point
					}
				}
				for _, kv := range p.Attributes.ToSlice() {
					if kv.Key == "client.address" || kv.Key == "enduser.id" {
						t.Fatalf("%s carries %s", name, kv.Key)
					}
				}
				total += p.Value
			}
		}
	}
	return total
}

func TestAuthenticationMetrics(t *testing.T) {
	m := installMetrics(t)
	b := bans.New(bans.Threshold(1), bans.Name("edge"))
	srv := gateServerBehind(t, []string{"127.0.0.1/32"}, nil, exampleRouter(), newFake(), authn.Bans(b))
	do(t, srv, "GET", "/me", bearerHeader("alice-token"), "")
	do(t, srv, "GET", "/admin", bearerHeader("alice-token"), "") // success + authorization refusal
	do(t, srv, "GET", "/me", bearerHeader("expired-token"), "")
	do(t, srv, "GET", "/hello", nil, "") // anonymous, no token: not an attempt
	do(t, srv, "GET", "/me", from("192.0.2.9", bearerHeader("forged-token")), "")
	do(t, srv, "GET", "/me", from("192.0.2.9", bearerHeader("alice-token")), "") // banned: counted

	s := func(k, v string) attribute.KeyValue { return attribute.String(k, v) }
	checks := []struct {
		name  string
		attrs []attribute.KeyValue
		want  int64
	}{
		{"svc.authentication.attempts", []attribute.KeyValue{s("svc.outcome", "success")}, 2},
		{"svc.authentication.attempts", []attribute.KeyValue{s("svc.outcome", "refused"), s("error.type", "expired"), s("http.route", "/me")}, 1},
		{"svc.authentication.attempts", []attribute.KeyValue{s("svc.outcome", "refused"), s("error.type", "signature")}, 1},
		{"svc.authentication.attempts", []attribute.KeyValue{s("svc.outcome", "refused"), s("error.type", "client-banned"), s("http.route", "/me")}, 1},
		{"svc.authorization.refusals", []attribute.KeyValue{s("error.type", "insufficient-scope"), s("http.route", "/admin")}, 1},
		{"svc.client_bans.started", []attribute.KeyValue{s("svc.client_bans.name", "edge")}, 1},
		{"svc.client_bans.active", []attribute.KeyValue{s("svc.client_bans.name", "edge")}, 1},
	}
	for _, c := range checks {
		if got := m.sum(t, c.name, c.attrs...); got != c.want {
			t.Errorf("%s %v = %d, want %d", c.name, c.attrs, got, c.want)
		}
	}
	if got := m.sum(t, "svc.authentication.attempts"); got != 5 {
		t.Errorf("attempts in all = %d, want 5 (one per request that met the gate)", got)
	}
}

// TestForgersAreBannedUnderLoad: 50 forgers behind a trusted proxy, each
// from its own address, while a legitimate caller keeps calling.
func TestForgersAreBannedUnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("load test")
	}
	v := newCounting()
	b := bans.New(bans.Threshold(3), bans.Duration(time.Hour))
	o := observedGateBehind(t, []string{"127.0.0.0/8"}, exampleRouter(), v, authn.Bans(b))
	const forgers, rounds = 50, 20
	var wg sync.WaitGroup
	var legitRefused atomic.Int64
	stop := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			if got := do(t, o.srv, "GET", "/me", from("203.0.113.200", bearerHeader("alice-token")), ""); got.status != 200 {
				legitRefused.Add(1)
			}
		}
	}()
	var fw sync.WaitGroup
	for i := 0; i < forgers; i++ {
		fw.Add(1)
		go func(i int) {
			defer fw.Done()
			for j := 0; j < rounds; j++ {
				do(t, o.srv, "GET", "/me", from(fmt.Sprintf("198.51.100.%d", i), bearerHeader("forged-token")), "")
			}
		}(i)
	}
	fw.Wait()
	if b.Active() != forgers {
		t.Fatalf("%d forgers banned, want %d", b.Active(), forgers)
	}
	flat := v.forged.Load()
	if flat > forgers*3 {
		t.Fatalf("%d forged tokens verified; a ban should start at the third of each forger", flat)
	}
	for i := 0; i < forgers; i++ {
		do(t, o.srv, "GET", "/me", from(fmt.Sprintf("198.51.100.%d", i), bearerHeader("forged-token")), "")
	}
	close(stop)
	wg.Wait()
	if v.forged.Load() != flat {
		t.Fatalf("banned forgers' tokens were verified: %d more", v.forged.Load()-flat)
	}
	if legitRefused.Load() != 0 {
		t.Fatalf("the legitimate caller was refused %d times", legitRefused.Load())
	}
	perKind := map[string]int{}
	for _, rec := range o.security() {
		f := rec.ContextMap()
		perKind[fmt.Sprint(f["client.address"], " ", f["error.type"], f["otel.event.name"])]++
	}
	for k, n := range perKind {
		if n != 1 {
			t.Errorf("%s written %d times in one minute", k, n)
		}
	}
}

// TestBannedRefusalAnnotatesTheSpan: a banned caller's refusal is counted,
// not written, but its span carries svc.authentication.refusal like every
// refusal, and no event.
func TestBannedRefusalAnnotatesTheSpan(t *testing.T) {
	o := observedGate(t, exampleRouter(), newFake(), authn.Bans(bans.New(bans.Threshold(1))))
	do(t, o.srv, "GET", "/me", bearerHeader("forged-token"), "")
	if got := do(t, o.srv, "GET", "/me", bearerHeader("alice-token"), ""); got.status != 429 {
		t.Fatalf("banned caller: %d", got.status)
	}
	spans := o.spans.Ended()
	last := spans[len(spans)-1]
	if !hasAttr(last.Attributes(), "svc.authentication.refusal", "client-banned") {
		t.Fatalf("banned refusal's span attributes: %v", last.Attributes())
	}
	if len(last.Events()) != 0 || last.Status().Code != 0 {
		t.Fatalf("banned refusal's span: events %v, status %v", last.Events(), last.Status())
	}
}

// A proxy appends X-Forwarded-For; a Forwarded header the client wrote
// itself must not give each forgery a new address and so escape the ban.
func TestAForgedForwardedHeaderDoesNotEscapeABan(t *testing.T) {
	b := bans.New(bans.Threshold(2), bans.Duration(time.Minute))
	o := observedGateBehind(t, []string{"127.0.0.1/32"}, exampleRouter(), newCounting(), authn.Bans(b))
	for i := range 4 {
		h := from("198.51.100.66", bearerHeader("forged-token"))
		h.Set("Forwarded", fmt.Sprintf("for=203.0.113.%d", i+1))
		do(t, o.srv, "GET", "/me", h, "")
	}
	if got := do(t, o.srv, "GET", "/me", from("198.51.100.66", bearerHeader("alice-token")), ""); got.status != 429 {
		t.Fatalf("after four forgeries from one X-Forwarded-For address: %d, want 429", got.status)
	}
}
