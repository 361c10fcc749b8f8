// Package tracingtest is a test kit for services that export spans with
// modules/tracing: a real OTLP/HTTP receiver on loopback that decodes the
// protobuf export requests the otlp-http exporter sends, and keeps the
// spans and request headers it received.
//
//	rcv := tracingtest.NewReceiver(t)
//	tr, _ := tracing.FromConfig(tracing.Config{Export: tracing.Export{Endpoint: secret.URL(rcv.URL)}}) // tracing/otlphttp imported
//	// … open, serve a request, then tracingtest.Flush(t, tr) (or Close)
//	span, ok := rcv.Find("GET /items/{id}")
//
// It is for tests only and is linked into no binary that does not import it.
package tracingtest

import (
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	"google.golang.org/protobuf/proto"
)

// path is where the receiver accepts exports, OTLP/HTTP's default.
const path = "/v1/traces"

// Receiver is a running OTLP/HTTP trace receiver. Build it with
// NewReceiver; it stops at the test's cleanup. It is safe for concurrent
// use.
type Receiver struct {
	// URL is the full export URL, http://127.0.0.1:PORT/v1/traces.
	URL string

	mu      sync.Mutex
	spans   []Span
	headers []http.Header
	status  int    // answer to the exports while non-zero
	body    string // with status
	hang    bool
	release chan struct{}
}

// Span is one received span, IDs in lower-case hex.
type Span struct {
	Name         string
	TraceID      string
	SpanID       string
	ParentSpanID string // "" for a root span
	// Kind is OTLP's SpanKind name, e.g. "SPAN_KIND_SERVER".
	Kind string
	// Scope is the instrumentation scope (the tracer's name).
	Scope string
	// Attributes, Resource: values printed with fmt (strings as is).
	Attributes map[string]string
	Resource   map[string]string
	Events     []Event
	// Links are the linked spans' IDs.
	Links []Link
}

// Event is a span event.
type Event struct {
	Name       string
	Attributes map[string]string
}

// Link is a span link.
type Link struct {
	TraceID, SpanID string
}

// NewReceiver starts a receiver on loopback answering 200 to every export
// on /v1/traces (405 to other methods, 404 to other paths, 400 to a body that is
// not an ExportTraceServiceRequest), and stops it when the test ends.
func NewReceiver(t testing.TB) *Receiver {
	t.Helper()
	r := &Receiver{release: make(chan struct{})}
	srv := httptest.NewServer(http.HandlerFunc(r.serve))
	// Release hung exports first: Close waits for open requests.
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(r.release) })
	r.URL = srv.URL + path
	return r
}

func (r *Receiver) serve(w http.ResponseWriter, req *http.Request) {
	if req.URL.Path != path {
		http.NotFound(w, req)
		return
	}
	if req.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "POST only", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(req.Body)
	var msg coltracepb.ExportTraceServiceRequest
	if err == nil {
		err = proto.Unmarshal(body, &msg)
	}
	if err != nil {
		http.Error(w, "not an ExportTraceServiceRequest", http.StatusBadRequest)
		return
	}
	r.mu.Lock()
	r.headers = append(r.headers, req.Header.Clone())
	status, text, hang := r.status, r.body, r.hang
	if status == 0 && !hang {
		r.spans = append(r.spans, decode(&msg)...)
	}
	r.mu.Unlock()
	if hang {
		select {
		case <-req.Context().Done():
		case <-r.release:
		}
		return
	}
	if status != 0 {
		http.Error(w, text, status)
		return
	}
	out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

// Refuse makes the receiver answer every later export with status and
// body (a collector echoing what it was sent, for instance), keeping none
// of their spans; status 0 accepts again.
func (r *Receiver) Refuse(status int, body string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.status, r.body = status, body
}

// Hang makes the receiver hold every later export open until the client
// gives up or the test ends, keeping none of their spans.
func (r *Receiver) Hang() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.hang = true
}

// Spans returns the spans received so far, in arrival order.
func (r *Receiver) Spans() []Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Span(nil), r.spans...)
}

// Find returns the first received span named name.
func (r *Receiver) Find(name string) (Span, bool) {
	for _, s := range r.Spans() {
		if s.Name == name {
			return s, true
		}
	}
	return Span{}, false
}

// Headers returns the request headers of every export received so far,
// refused ones included.
func (r *Receiver) Headers() []http.Header {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]http.Header(nil), r.headers...)
}

func decode(msg *coltracepb.ExportTraceServiceRequest) []Span {
	var out []Span
	for _, rs := range msg.GetResourceSpans() {
		res := attrs(rs.GetResource().GetAttributes())
		for _, ss := range rs.GetScopeSpans() {
			for _, s := range ss.GetSpans() {
				sp := Span{
					Name:         s.GetName(),
					TraceID:      hex.EncodeToString(s.GetTraceId()),
					SpanID:       hex.EncodeToString(s.GetSpanId()),
					ParentSpanID: hex.EncodeToString(s.GetParentSpanId()),
					Kind:         s.GetKind().String(),
					Scope:        ss.GetScope().GetName(),
					Attributes:   attrs(s.GetAttributes()),
					Resource:     res,
				}
				for _, e := range s.GetEvents() {
					sp.Events = append(sp.Events, Event{Name: e.GetName(), Attributes: attrs(e.GetAttributes())})
				}
				for _, l := range s.GetLinks() {
					sp.Links = append(sp.Links, Link{TraceID: hex.EncodeToString(l.GetTraceId()), SpanID: hex.EncodeToString(l.GetSpanId())})
				}
				out = append(out, sp)
			}
		}
	}
	return out
}

func attrs(kvs []*commonpb.KeyValue) map[string]string {
	m := make(map[string]string, len(kvs))
	for _, kv := range kvs {
		m[kv.GetKey()] = value(kv.GetValue())
	}
	return m
}

func value(v *commonpb.AnyValue) string {
	switch x := v.GetValue().(type) {
	case *commonpb.AnyValue_StringValue:
		return x.StringValue
	case *commonpb.AnyValue_BoolValue:
		return fmt.Sprint(x.BoolValue)
	case *commonpb.AnyValue_IntValue:
		return fmt.Sprint(x.IntValue)
	case *commonpb.AnyValue_DoubleValue:
		return fmt.Sprint(x.DoubleValue)
	}
	return fmt.Sprint(v)
}
