package main

import (
	"encoding/json"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/go-chi/chi/v5"
	"go.uber.org/fx"

	"github.com/svckit/svc/fxsvc"
	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/conditional"
	"github.com/svckit/svc/modules/idempotency"
	"github.com/svckit/svc/modules/ratelimit"
	"github.com/svckit/svc/modules/redisstore/fxredis"
	"github.com/svckit/svc/modules/responsecache"
)

// behindGate adds the components that run behind the gate. Routes opt in
// with markers (mountOrders). With SVC_REDIS_URL set their state lives on
// Redis, shared by every replica; without it, in memory (fxredis.Redis
// says so at start).
func behindGate() fx.Option {
	return fx.Options(
		fxredis.Redis(),
		fxsvc.RateLimits(),
		fxsvc.Idempotency(),
		fxsvc.Conditional(),
		fxsvc.ResponseCache(),
	)
}

type order struct {
	ID     int    `json:"id"`
	Item   string `json:"item"`
	Status string `json:"status"`
}

// orderBook is the example's in-memory orders.
type orderBook struct {
	mu     sync.Mutex
	orders map[int]order
}

func (b *orderBook) get(id string) (order, bool) {
	n, err := strconv.Atoi(id)
	if err != nil {
		return order{}, false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	o, ok := b.orders[n]
	return o, ok
}

// current is the order's ETag as GET /orders/{id} sends it, for If-Match.
func (b *orderBook) current(r *http.Request) (string, time.Time, error) {
	o, ok := b.get(chi.URLParam(r, "id"))
	if !ok {
		return "", time.Time{}, nil
	}
	body, err := jsonBody(o)
	if err != nil {
		return "", time.Time{}, err
	}
	return conditional.ETagOf(body), time.Time{}, nil
}

// mountOrders shows every component behind the gate:
//
//	POST /orders        idempotent (Idempotency-Key required), 10/s per caller
//	GET  /orders/{id}   strong ETag, 304 on If-None-Match
//	PUT  /orders/{id}   If-Match required (412 stale, 428 missing)
//	GET  /catalog       anonymous, cached 30 s, 5/s per client address
func mountOrders(r chi.Router) {
	book := &orderBook{orders: map[int]order{}}
	r.With(authn.Require("read"), ratelimit.Limit("10/s", 20, ratelimit.Name("orders")), idempotency.Required()).
		Post("/orders", book.create)
	r.With(conditional.ETags()).Get("/orders/{id}", book.show)
	r.With(authn.Require("read"), conditional.Require(book.current)).Put("/orders/{id}", book.replace)
	r.With(authn.Anonymous, ratelimit.Limit("5/s", 10, ratelimit.Name("catalog")), responsecache.Cached()).
		Get("/catalog", catalog)
}

func (b *orderBook) create(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Item string `json:"item"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.Item == "" {
		http.Error(w, `send {"item": "..."}`, http.StatusBadRequest)
		return
	}
	b.mu.Lock()
	o := order{ID: len(b.orders) + 1, Item: in.Item, Status: "open"}
	b.orders[o.ID] = o
	b.mu.Unlock()
	w.Header().Set("Location", "/orders/"+strconv.Itoa(o.ID))
	writeJSON(w, http.StatusCreated, o)
}

// found is the order the URL names; without one it answers 404.
func (b *orderBook) found(w http.ResponseWriter, r *http.Request) (order, bool) {
	o, ok := b.get(chi.URLParam(r, "id"))
	if !ok {
		http.NotFound(w, r)
	}
	return o, ok
}

func (b *orderBook) show(w http.ResponseWriter, r *http.Request) {
	if o, ok := b.found(w, r); ok {
		writeJSON(w, http.StatusOK, o)
	}
}

func (b *orderBook) replace(w http.ResponseWriter, r *http.Request) {
	o, ok := b.found(w, r)
	if !ok {
		return
	}
	var in struct {
		Status string `json:"status"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.Status == "" {
		http.Error(w, `send {"status": "..."}`, http.StatusBadRequest)
		return
	}
	o.Status = in.Status
	b.mu.Lock()
	b.orders[o.ID] = o
	b.mu.Unlock()
	writeJSON(w, http.StatusOK, o)
}

func catalog(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Cache-Control", "public, max-age=30")
	writeJSON(w, http.StatusOK, map[string]any{"items": []string{"pen", "ink", "paper"}, "at": time.Now().UTC().Format(time.RFC3339)})
}

// jsonBody is the body writeJSON sends, so that current computes the same
// ETag as GET.
func jsonBody(v any) ([]byte, error) {
	body, err := json.Marshal(v)
	return append(body, '\n'), err
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := jsonBody(v)
	if err != nil {
		http.Error(w, http.StatusText(http.StatusInternalServerError), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}
