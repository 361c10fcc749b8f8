package main

import (
	"encoding/json"
	"net"
	"net/http"
	"sync/atomic"

	"github.com/go-chi/chi/v5"

	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/idempotency"
)

func newRouter() chi.Router {
	var o orders
	// chi.NewRouter that also refuses a route registered twice
	r := authn.NewChiRouter()
	r.With(authn.Anonymous).Get("/hello", hello)            // a token is optional here
	r.Get("/me", me)                                        // any valid token
	r.With(authn.Require("write"), idempotency.Required()). // scope first, then the marker
								Post("/orders", o.create)
	return r
}

func hello(w http.ResponseWriter, _ *http.Request) {
	_, _ = w.Write([]byte("hello\n"))
}

func me(w http.ResponseWriter, r *http.Request) {
	p, _ := authn.PrincipalFrom(r.Context())
	writeJSON(w, http.StatusOK, map[string]any{"subject": p.Subject, "scopes": p.Scopes.List()})
}

// orders numbers the orders this replica creates.
type orders struct{ last atomic.Int64 }

type order struct {
	ID       int64  `json:"id"`
	Item     string `json:"item"`
	By       string `json:"by"`
	ServedBy string `json:"served_by"` // the replica's address: a replay shows the first one's
}

func (o *orders) create(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Item string `json:"item"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.Item == "" {
		http.Error(w, `the body must be {"item":"..."}`, http.StatusBadRequest)
		return
	}
	p, _ := authn.PrincipalFrom(r.Context())
	writeJSON(w, http.StatusCreated, order{ID: o.last.Add(1), Item: in.Item, By: p.Subject, ServedBy: localAddr(r)})
}

func localAddr(r *http.Request) string {
	if a, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok {
		return a.String()
	}
	return ""
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
