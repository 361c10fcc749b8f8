package redisstore

import (
	"context"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	svcerrors "github.com/svckit/svc/modules/errors"
	"github.com/svckit/svc/modules/store"
)

var (
	errUnavailable = store.ErrUnavailable
	refused        = &svcerrors.AdmissionRefused{}
)

const meterScope = "github.com/svckit/svc/modules/redisstore"

type instruments struct {
	duration metric.Float64Histogram
	errors   metric.Int64Counter
	attrs    sync.Map // op -> *opAttrs
}

// newInstruments binds to p (by default the global provider of the
// moment the client is built; fxsvc.Metrics sets it before).
func newInstruments(p metric.MeterProvider) *instruments {
	m := p.Meter(meterScope)
	d, _ := m.Float64Histogram("svc.redis.duration", metric.WithUnit("s"),
		metric.WithDescription("Round-trip time of one Redis operation."))
	e, _ := m.Int64Counter("svc.redis.errors", metric.WithUnit("{error}"),
		metric.WithDescription("Redis operations that failed (timeout, connection refused, error reply)."))
	return &instruments{duration: d, errors: e}
}

// opAttrs are one operation's measurement options, built once: passing
// them as prepared slices keeps a measurement from allocating.
type opAttrs struct {
	rec []metric.RecordOption
	add []metric.AddOption
}

func (in *instruments) record(ctx context.Context, op string, d time.Duration, err error) {
	attrs := in.attrsOf(op)
	in.duration.Record(ctx, d.Seconds(), attrs.rec...)
	if err != nil {
		in.errors.Add(ctx, 1, attrs.add...)
	}
}

// unsent counts op as failed without a duration: the request had no time
// left to send it.
func (in *instruments) unsent(ctx context.Context, op string) {
	in.errors.Add(ctx, 1, in.attrsOf(op).add...)
}

func (in *instruments) attrsOf(op string) *opAttrs {
	a, ok := in.attrs.Load(op)
	if !ok {
		o := metric.WithAttributeSet(attribute.NewSet(attribute.String("db.operation.name", op)))
		a, _ = in.attrs.LoadOrStore(op, &opAttrs{rec: []metric.RecordOption{o}, add: []metric.AddOption{o}})
	}
	return a.(*opAttrs)
}

// key joins the prefix, the store's kind and the key's parts, escaping
// ':' and '%' in the parts so that no two keys join alike.
func (c *Client) key(kind string, k store.Key) string {
	var b strings.Builder
	b.Grow(len(c.cfg.Prefix) + len(kind) + len(k.Space) + len(k.Owner) + len(k.ID) + 3)
	b.WriteString(c.cfg.Prefix)
	b.WriteString(kind)
	for _, p := range [3]string{k.Space, k.Owner, k.ID} {
		b.WriteByte(':')
		escape(&b, p)
	}
	return b.String()
}

func escape(b *strings.Builder, s string) {
	if !strings.ContainsAny(s, ":%") {
		b.WriteString(s)
		return
	}
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ':':
			b.WriteString("%3A")
		case '%':
			b.WriteString("%25")
		default:
			b.WriteByte(s[i])
		}
	}
}
