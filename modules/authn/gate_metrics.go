package authn

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/svckit/svc/internal/reqfacts"
)

// meterScope is the instrumentation scope of the gate's metrics.
const meterScope = "github.com/svckit/svc/modules/authn"

// gateMetrics are the gate's instruments on one meter provider: the global
// one, as for every svc component (otelglobal), rebuilt when it changes. No subject and no address is
// ever an attribute.
type gateMetrics struct {
	attempts    metric.Int64Counter
	authz       metric.Int64Counter
	bansStarted metric.Int64Counter
	active      metric.Registration
}

// successOpts is built once: a variadic option passed inline allocates its
// slice on every admitted request.
var successOpts = []metric.AddOption{metric.WithAttributeSet(attribute.NewSet(attribute.String("svc.outcome", "success")))}

func (g *Gate) metrics() *gateMetrics { return g.meters.Get(g.newMetrics) }

// newMetrics builds the gate's instruments on p, releasing the previous
// provider's callback.
func (g *Gate) newMetrics(p metric.MeterProvider, old *gateMetrics) *gateMetrics {
	if old != nil && old.active != nil {
		_ = old.active.Unregister()
	}
	meter := p.Meter(meterScope)
	m := &gateMetrics{}
	m.attempts, _ = meter.Int64Counter("svc.authentication.attempts",
		metric.WithDescription("Requests that met the authentication gate, by outcome."), metric.WithUnit("{request}"))
	m.authz, _ = meter.Int64Counter("svc.authorization.refusals",
		metric.WithDescription("Authenticated requests a route refused: a missing scope, or a user authentication too weak or too old (step-up)."), metric.WithUnit("{request}"))
	if b := g.bans; b != nil {
		name := metric.WithAttributeSet(attribute.NewSet(attribute.String("svc.client_bans.name", b.Name())))
		m.bansStarted, _ = meter.Int64Counter("svc.client_bans.started",
			metric.WithDescription("Bans started for forged tokens."), metric.WithUnit("{ban}"))
		active, _ := meter.Int64ObservableGauge("svc.client_bans.active",
			metric.WithDescription("Bans in force, read at collection time."), metric.WithUnit("{ban}"))
		m.active, _ = meter.RegisterCallback(func(_ context.Context, o metric.Observer) error {
			o.ObserveInt64(active, int64(b.Active()), name)
			return nil
		}, active)
	}
	return m
}

// issuerLabelAttr is the attribute naming the issuer in the gate's metrics
// and security records: a contract (docs/authn.md names it).
const issuerLabelAttr = "svc.authn.issuer"

// issuerLabel is the label of the configured issuer that verified a
// principal whose iss is iss: "" for a verifier of the app's own, which
// names no configured issuer (a token's iss is never a label).
func (g *Gate) issuerLabel(iss string) string {
	if g.labeler == nil {
		return ""
	}
	return g.labeler(iss)
}

// countSuccess counts an admitted request; issuer is the label of the
// issuer that verified it, "" for none.
func (g *Gate) countSuccess(ctx context.Context, issuer string) {
	opts := successOpts
	if issuer != "" {
		// The last label counted is kept apart: with one issuer (or a
		// run of one), success costs a string compare, not a map lookup.
		if last := g.lastSuccess.Load(); last != nil && last.issuer == issuer {
			opts = last.opts
		} else {
			opts = g.outcome(outcomeKey{issuer: issuer})
			g.lastSuccess.Store(&issuerOpts{issuer: issuer, opts: opts})
		}
	}
	g.metrics().attempts.Add(ctx, 1, opts...)
}

// countRefused counts a refusal of the gate; proof is the reason of
// a refused DPoP proof, "" for any other refusal.
func (g *Gate) countRefused(ctx context.Context, word, route, issuer, proof string) {
	g.metrics().attempts.Add(ctx, 1, g.outcome(outcomeKey{word: word, route: route, issuer: issuer, proof: proof})...)
}

func (g *Gate) countAuthz(ctx context.Context, word, route, issuer string) {
	g.metrics().authz.Add(ctx, 1, g.outcome(outcomeKey{authz: true, word: word, route: route, issuer: issuer})...)
}

// issuerOpts are the success attributes of one issuer label.
type issuerOpts struct {
	issuer string
	opts   []metric.AddOption
}

// outcomeKey is what an attempt is counted by: an authorization refusal
// (authz) or an attempt, its word ("" for a success), its route and
// issuer label, and the proof's own reason of a refused DPoP proof.
type outcomeKey struct {
	authz                      bool
	word, route, issuer, proof string
}

// outcome returns the attributes of an attempt, built once per key: the
// words and the proof reasons are fixed sets, the issuer labels the
// configured issuers', so the cache stays small.
func (g *Gate) outcome(key outcomeKey) []metric.AddOption {
	if v, ok := g.outcomeOpts.Load(key); ok {
		return v.([]metric.AddOption)
	}
	authz, word, route, issuer := key.authz, key.word, key.route, key.issuer
	var attrs []attribute.KeyValue
	switch {
	case authz:
	case word == "":
		attrs = append(attrs, attribute.String("svc.outcome", "success"))
	default:
		attrs = append(attrs, attribute.String("svc.outcome", "refused"))
	}
	if word != "" {
		attrs = append(attrs, attribute.String("error.type", word))
	}
	if route != "" {
		attrs = append(attrs, attribute.String("http.route", route))
	}
	if issuer != "" {
		attrs = append(attrs, attribute.String(issuerLabelAttr, issuer))
	}
	if key.proof != "" {
		attrs = append(attrs, attribute.String(dpopReasonAttr, key.proof))
	}
	opts := []metric.AddOption{metric.WithAttributeSet(attribute.NewSet(attrs...))}
	g.outcomeOpts.Store(key, opts)
	return opts
}

func (g *Gate) countBanStarted(ctx context.Context) {
	if m := g.metrics(); m.bansStarted != nil {
		m.bansStarted.Add(ctx, 1, metric.WithAttributes(attribute.String("svc.client_bans.name", g.bans.Name())))
	}
}

// setEndUser names the caller on the server span and in the access log
// (EndUser(true) only).
func setEndUser(ctx context.Context, subject string) {
	if subject == "" {
		return
	}
	if st := reqfacts.From(ctx); st != nil {
		st.SetSubject(subject)
	}
	if span := trace.SpanFromContext(ctx); span.IsRecording() {
		span.SetAttributes(attribute.String("enduser.id", subject))
	}
}
