package gate_test

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/svckit/svc/bench/internal/pair"
	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/bearer"
	"github.com/svckit/svc/modules/authn/dpop"
)

// feature is one gate setting whose cost on a cache hit the feature-cost
// table of bench/README reports: the gate with it against the gate
// without, in one loop, on the same repeated valid token.
type feature struct {
	name string
	// gate builds the gate with the feature around router; route is the
	// route's own markers (step-up), nil for none.
	opts   []authn.Option
	verify func(tb testing.TB, k *keys) bearer.Verifier
	route  []func(http.Handler) http.Handler
	claims map[string]any
}

// openedKeySet is the benchmarks' verifier, opened until the benchmark
// ends.
func openedKeySet(tb testing.TB, iss string, key crypto.PublicKey) *bearer.JWTVerifier {
	v := bearer.KeySet(iss, audience, []crypto.PublicKey{key})
	if err := v.Open(context.Background()); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = v.Close(context.Background()) })
	return v
}

// features are issue 36's list: what each adds when configured.
func features(tb testing.TB) []feature {
	dv, err := dpop.New()
	if err != nil {
		tb.Fatal(err)
	}
	other, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	return []feature{
		{name: "dpop-allowed", opts: []authn.Option{authn.DPoP(dv, false)}},
		{name: "binding-checked", opts: []authn.Option{authn.CertificateBound("")}},
		{name: "step-up-on-the-route", route: []func(http.Handler) http.Handler{authn.RequireACR("urn:mfa")},
			claims: map[string]any{"acr": "urn:mfa", "auth_time": time.Now().Unix()}},
		{name: "three-issuers", verify: func(tb testing.TB, k *keys) bearer.Verifier {
			return bearer.Issuers(openedKeySet(tb, "https://a.example", &other.PublicKey),
				openedKeySet(tb, issuer, &k.key.PublicKey), openedKeySet(tb, "https://z.example", &other.PublicKey))
		}},
	}
}

// gateWith is svc's gate, with f or without it (f nil), in front of the
// route; the verifier is opened for the benchmark.
func gateWith(tb testing.TB, k *keys, f *feature) http.Handler {
	tb.Helper()
	var v bearer.Verifier
	var opts []authn.Option
	var marks []func(http.Handler) http.Handler
	if f != nil && f.verify != nil {
		v = f.verify(tb, k)
	} else {
		v = openedKeySet(tb, issuer, &k.key.PublicKey)
	}
	if f != nil {
		opts, marks = f.opts, f.route
	}
	g, err := authn.New(v, opts...)
	if err != nil {
		tb.Fatal(err)
	}
	r := authn.NewChiRouter()
	r.With(marks...).Get("/me", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, meBody)
	})
	h, err := g.Handler(r)
	if err != nil {
		tb.Fatal(err)
	}
	return h
}

// BenchmarkGateFeatures is the feature-cost table: for each feature, the
// gate's cache hit with it (on) against without it (off), paired, on
// thread CPU time; feature-cpu-ns/op is what it adds.
//
//	cd bench && go test -run '^$' -bench 'GateFeatures' -count 6 ./gate
func BenchmarkGateFeatures(b *testing.B) {
	k := theKeys(b)
	for _, f := range features(b) {
		b.Run(f.name, func(b *testing.B) {
			tok := k.mintWith(7, time.Now(), f.claims).auth
			on, off := gateWith(b, k, &f), gateWith(b, k, nil)
			expect(b, f.name, on, request(tok), http.StatusOK)
			expect(b, f.name+" (off)", off, request(tok), http.StatusOK)
			w := newDiscardWriter()
			run := func(h http.Handler, r *http.Request) func() {
				return func() {
					w.reset()
					h.ServeHTTP(w, r)
					if w.status != http.StatusOK {
						b.Fatalf("status %d", w.status)
					}
				}
			}
			con, coff := pair.Paired(b, 64, run(on, request(tok)), run(off, request(tok)))
			pair.Report(b, "on", "off", con, coff)
			if con.CPU > 0 && coff.CPU > 0 {
				b.ReportMetric(con.CPU-coff.CPU, "feature-cpu-ns/op")
			}
		})
	}
}
