package redisstore_test

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/bans"
	"github.com/svckit/svc/modules/authn/bearer"
	"github.com/svckit/svc/modules/authn/flood"
	svcerrors "github.com/svckit/svc/modules/errors"
	"github.com/svckit/svc/modules/redisstore"
	"github.com/svckit/svc/modules/store"
	"github.com/svckit/svc/modules/telemetry"
)

const docs = "https://github.com/svckit/svc/blob/main/docs/errors.md#"

// verifier accepts "good" and calls anything else forged.
type verifier struct{}

func (verifier) Verify(_ context.Context, tok string) (bearer.Principal, error) {
	if tok == "good" {
		return bearer.Principal{Subject: "alice", Issuer: "https://idp.test", Authenticated: true}, nil
	}
	return bearer.Principal{}, &bearer.TokenError{Reason: bearer.ReasonSignature}
}

// replica is one app instance: its own Redis client, ban store, gate and
// server, as a replica behind a load balancer would have.
type replica struct {
	srv   *httptest.Server
	bans  *redisstore.Bans
	flood store.Flood
}

func newClient(t *testing.T, addr string) *redis.Client {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: addr, DialTimeout: 200 * time.Millisecond,
		ReadTimeout: 200 * time.Millisecond, WriteTimeout: 200 * time.Millisecond})
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func newReplica(t *testing.T, addr string, threshold int, opts ...redisstore.LinkOption) *replica {
	t.Helper()
	return newReplicaEvery(t, addr, threshold, 0, opts...)
}

// newReplicaEvery is newReplica whose ban store reads the whole ban set
// again every resync (0: the default).
func newReplicaEvery(t *testing.T, addr string, threshold int, resync time.Duration, opts ...redisstore.LinkOption) *replica {
	t.Helper()
	c := newClient(t, addr)
	bs := redisstore.NewBansEvery(c, "test:", resync, append([]redisstore.LinkOption{redisstore.LinkTimeout(200 * time.Millisecond)}, opts...)...)
	fs := redisstore.NewFlood(c, "test:", redisstore.LinkTimeout(200*time.Millisecond))
	if err := bs.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := bs.Close(ctx); err != nil {
			t.Error(err)
		}
	})
	g, err := authn.New(verifier{},
		authn.Bans(bans.New(bans.Threshold(threshold), bans.Duration(time.Minute), bans.Store(bs))),
		authn.Flood(flood.New(flood.Rate(0.01), flood.Burst(3), flood.Store(fs))))
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /me", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") })
	h, err := g.Handler(mux)
	if err != nil {
		t.Fatal(err)
	}
	// svc's outermost wrapper names the caller behind the test's proxy.
	tel, err := telemetry.New(telemetry.TrustedProxies("127.0.0.1/32"))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(tel.Handler(svcerrors.New().Middleware(h)))
	t.Cleanup(srv.Close)
	return &replica{srv: srv, bans: bs, flood: fs}
}

func waitSynced(t *testing.T, rs ...*replica) {
	t.Helper()
	for _, r := range rs {
		select {
		case <-r.bans.Synced():
		case <-time.After(10 * time.Second):
			t.Fatal("the ban store never read the ban set from Redis")
		}
	}
}

type answer struct {
	status int
	header http.Header
	body   map[string]any
	took   time.Duration
}

func get(t *testing.T, r *replica, path, addr, token string) answer {
	t.Helper()
	req, _ := http.NewRequest("GET", r.srv.URL+path, nil)
	req.Header.Set("X-Forwarded-For", addr)
	req.Header.Set("Authorization", "Bearer "+token)
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	a := answer{status: resp.StatusCode, header: resp.Header, took: time.Since(start)}
	raw, _ := io.ReadAll(resp.Body)
	_ = json.Unmarshal(raw, &a.body)
	return a
}

// blackhole accepts connections and never answers: a Redis that hangs.
func blackhole(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
		}
	}()
	t.Cleanup(func() {
		_ = l.Close()
		<-done
		for _, c := range conns {
			_ = c.Close()
		}
	})
	return l.Addr().String()
}

// redisCounters reads svc.redis.errors by db.operation.name and
// svc.redis.fail_open by store/operation.
func redisCounters(t *testing.T, reader *sdkmetric.ManualReader) (errs, failOpen map[string]int64) {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(t.Context(), &rm); err != nil {
		t.Fatal(err)
	}
	errs, failOpen = map[string]int64{}, map[string]int64{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			sum, ok := m.Data.(metricdata.Sum[int64])
			if !ok {
				continue
			}
			for _, p := range sum.DataPoints {
				op, _ := p.Attributes.Value("db.operation.name")
				switch m.Name {
				case "svc.redis.errors":
					errs[op.AsString()] += p.Value
				case "svc.redis.fail_open":
					st, _ := p.Attributes.Value("svc.redis.store")
					failOpen[st.AsString()+"/"+op.AsString()] += p.Value
				}
			}
		}
	}
	return errs, failOpen
}
