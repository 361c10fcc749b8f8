package authn

import (
	"container/list"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/svckit/svc/modules/requestid"
	"github.com/svckit/svc/modules/store"
)

// eventsLogger is the name of the security events logger: a contract (the
// README names it), for log pipelines that route security records apart.
const eventsLogger = "svc.security.events"

// Limits of security records.
const (
	// maxValueLen cuts values read from the request.
	maxValueLen = 256
	// recordWindow: each kind of refusal from one address is written once
	// per window; the next record of that kind carries how many were held.
	recordWindow = time.Minute
	// maxRecordKeys bounds the (kind, address) pairs remembered. Past it,
	// new addresses share one count per kind, so an address-spraying attack
	// costs neither memory nor log volume.
	maxRecordKeys = 10_000
)

// recordLimiter decides which refusals are written.
type recordLimiter struct {
	now func() time.Time

	mu    sync.Mutex
	slots map[recordKey]*list.Element // of *recordSlot
	order *list.List                  // least recently written first
}

type recordKey struct{ word, addr string }

type recordSlot struct {
	key        recordKey
	written    time.Time
	suppressed int
}

func newRecordLimiter(now func() time.Time) *recordLimiter {
	return &recordLimiter{now: now, slots: map[recordKey]*list.Element{}, order: list.New()}
}

// allow reports whether a record of word from addr is written now, and how
// many of its kind were held back since the last one written.
func (l *recordLimiter) allow(word, addr string) (write bool, suppressed int) {
	now := l.now()
	key := recordKey{word, addr}
	l.mu.Lock()
	defer l.mu.Unlock()
	el, ok := l.slots[key]
	if !ok {
		for l.order.Len() >= maxRecordKeys {
			oldest := l.order.Front().Value.(*recordSlot)
			if now.Sub(oldest.written) < recordWindow {
				// Every slot is live: this address joins the shared count.
				key = recordKey{word, ""}
				el, ok = l.slots[key]
				break
			}
			delete(l.slots, oldest.key)
			l.order.Remove(l.order.Front())
		}
	}
	if !ok {
		l.slots[key] = l.order.PushBack(&recordSlot{key: key, written: now})
		return true, 0
	}
	s := el.Value.(*recordSlot)
	if now.Sub(s.written) < recordWindow {
		s.suppressed++
		return false, 0
	}
	suppressed = s.suppressed
	s.written, s.suppressed = now, 0
	l.order.MoveToBack(el)
	return true, suppressed
}

// clean cuts a value read from the request to maxValueLen characters and
// escapes control characters, so that a record can neither be forged (CR,
// LF) nor paint a terminal (ANSI escapes). Unicode's format characters
// (category Cf: the bidi embeddings, overrides and isolates U+202A–202E
// and U+2066–2069, the marks U+200E, U+200F and U+061C, zero-width
// characters, the BOM) and the line and paragraph separators are escaped
// too: raw, they reorder or hide what a reader of the record sees
// (Trojan Source, CVE-2021-42574).
func clean(s string) string {
	needs := len(s) > maxValueLen
	for i := 0; i < len(s) && !needs; i++ {
		if s[i] < 0x20 || s[i] == 0x7f || s[i] >= utf8.RuneSelf {
			needs = true
		}
	}
	if !needs {
		return s
	}
	var b strings.Builder
	n := 0
	for _, r := range s {
		if n == maxValueLen {
			break
		}
		switch {
		case r == utf8.RuneError:
			b.WriteString(`\ufffd`)
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			b.WriteString(`\x`)
			b.WriteString(strconv.FormatInt(int64(r)|0x100, 16)[1:])
		case r == 0x2028 || r == 0x2029 || unicode.Is(unicode.Cf, r):
			writeUnicodeEscape(&b, r)
		default:
			b.WriteRune(r)
		}
		n++
	}
	return b.String()
}

// writeUnicodeEscape writes r as \uXXXX, or \UXXXXXXXX beyond the BMP
// (format characters such as the language tags U+E0001–E007F live there).
func writeUnicodeEscape(b *strings.Builder, r rune) {
	if r <= 0xffff {
		b.WriteString(`\u`)
		b.WriteString(strconv.FormatInt(int64(r)|0x10000, 16)[1:])
		return
	}
	b.WriteString(`\U`)
	b.WriteString(strconv.FormatInt(int64(r)|0x100000000, 16)[1:])
}

// refusalRecord is what one refusal writes and annotates.
type refusalRecord struct {
	ref     *Refusal
	route   string
	addr    string
	noCreds bool   // the request sent no credential at all: INFO, not WARN
	authz   bool   // a missing scope: category web, action svc.authorization.refused
	issuer  string // the label of the issuer that verified the token, "" when none did
}

func (g *Gate) writeRecord(r *http.Request, rec refusalRecord, suppressed int) {
	word, status := rec.ref.word(), rec.ref.status()
	category, action := "authentication", "svc.authentication.refused"
	if rec.authz {
		category, action = "web", "svc.authorization.refused"
	}
	route := clean(rec.route)
	method := clean(r.Method)
	// The refusal's facts, written once for the record and the span event.
	facts := []attribute.KeyValue{
		attribute.String("event.action", action),
		attribute.String("error.type", word),
		attribute.String("http.request.method", method),
		attribute.String("http.route", route),
		attribute.Int("http.response.status_code", status),
		attribute.String("client.address", clean(rec.addr)),
	}
	fields := make([]zap.Field, 0, 16)
	fields = append(fields,
		// One event name for every refusal (the record's schema); event.action
		// tells a missing scope from a refused credential.
		zap.String("otel.event.name", "svc.authentication.refused"),
		zap.String("event.kind", "event"),
		zap.Strings("event.category", []string{category}),
		zap.Strings("event.type", []string{"start"}),
		zap.String("event.outcome", "failure"),
	)
	for _, f := range facts {
		if f.Value.Type() == attribute.INT64 {
			fields = append(fields, zap.Int64(string(f.Key), f.Value.AsInt64()))
		} else {
			fields = append(fields, zap.String(string(f.Key), f.Value.AsString()))
		}
	}
	fields = append(fields, zap.String("user_agent.original", clean(r.UserAgent())))
	sc := trace.SpanContextFromContext(r.Context())
	if sc.IsValid() {
		fields = append(fields, zap.String("trace_id", sc.TraceID().String()), zap.String("span_id", sc.SpanID().String()))
	}
	if id := requestid.From(r.Context()); id != "" {
		fields = append(fields, zap.String(requestid.LogField, id))
	}
	if rec.issuer != "" {
		fields = append(fields, zap.String(issuerLabelAttr, rec.issuer))
	}
	if proof := rec.ref.proofReason(); proof != "" {
		fields = append(fields, zap.String(dpopReasonAttr, proof))
	}
	if a := rec.ref.audience; a != nil {
		fields = append(fields, a.fields()...)
	}
	if suppressed > 0 {
		fields = append(fields, zap.Int("svc.security.suppressed", suppressed))
	}
	level := zapcore.WarnLevel
	if rec.noCreds {
		level = zapcore.InfoLevel
	}
	shown := route
	if shown == "" {
		shown = "(no route)"
	}
	if ce := g.events.Check(level, fmt.Sprintf("%s %s %d %s", method, shown, status, word)); ce != nil {
		ce.Write(fields...)
	}
	span := trace.SpanFromContext(r.Context())
	if span.IsRecording() {
		span.SetAttributes(attribute.String("svc.authentication.refusal", word))
		if rec.issuer != "" {
			facts = append(facts, attribute.String(issuerLabelAttr, rec.issuer))
		}
		if a := rec.ref.audience; a != nil {
			facts = append(facts, a.attributes()...)
		}
		span.AddEvent("svc.authentication.refused", trace.WithAttributes(facts...))
	}
}

func (g *Gate) writeBanStarted(addr string, s store.Ban) {
	g.events.Warn(fmt.Sprintf("client %s banned for %s after %d forged or inactive tokens", clean(addr), s.Duration, s.Failures),
		zap.String("otel.event.name", "svc.client_bans.started"),
		zap.Strings("event.category", []string{"intrusion_detection"}),
		zap.Strings("event.type", []string{"denied"}),
		zap.String("event.outcome", "success"),
		zap.String("client.address", clean(addr)),
		zap.String("svc.client_bans.name", g.bans.Name()),
		zap.Int("svc.client_bans.failures", s.Failures),
		zap.Float64("svc.client_bans.duration", s.Duration.Seconds()),
		zap.String("svc.client_bans.until", s.Until.Format(time.RFC3339)),
	)
}
