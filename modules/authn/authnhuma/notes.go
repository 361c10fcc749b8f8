package authnhuma

import (
	"net/http"

	"github.com/danielgtaylor/huma/v2"
	"github.com/go-chi/chi/v5"
)

// notedHandler is an operation's handler as registered on the router when
// the operation has [Notes]. Serving it is calling the handler the Huma
// adapter built, as the http.HandlerFunc the adapter would register does:
// the same calls, no allocation. `check` reads the notes through
// WrappedHandler, as it reads a chi route's markers.
type notedHandler struct {
	serve http.HandlerFunc
	notes http.Handler // the markers applied to serve: read, never served
}

func (h *notedHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.serve(w, r) }

// WrappedHandler is what `check` reads the notes from (the components'
// route readers walk every handler that has this method).
func (h *notedHandler) WrappedHandler() http.Handler { return h.notes }

// noted returns fn as the handler to register for op: fn itself when op
// has no notes, so that an operation without them is registered as before.
func noted(op *huma.Operation, fn http.HandlerFunc) http.Handler {
	notes := guardOf(op).notes
	if len(notes) == 0 {
		return fn
	}
	var read http.Handler = fn
	for i := len(notes) - 1; i >= 0; i-- {
		read = notes[i](read)
	}
	return &notedHandler{serve: fn, notes: read}
}

// notedRouter is the chi router humachi registers an operation on: it
// registers the handler humachi builds through [noted].
type notedRouter struct {
	chi.Router
	op *huma.Operation
}

func (r notedRouter) MethodFunc(method, pattern string, fn http.HandlerFunc) {
	r.Method(method, pattern, noted(r.op, fn))
}
