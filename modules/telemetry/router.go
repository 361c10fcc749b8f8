package telemetry

import (
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/svckit/svc/internal/chihead"
	"github.com/svckit/svc/internal/reqfacts"
)

// finderOf is how the wrapper finds routes on a router no gate guards.
func finderOf(h http.Handler) reqfacts.Finder {
	switch mux := h.(type) {
	case chi.Routes:
		return chiFinder{mux}
	case muxFinder:
		return serveMuxFinder{mux}
	}
	return nil
}

type chiFinder struct{ mux chi.Routes }

func (c chiFinder) FindRoute(r *http.Request) (string, bool) {
	pattern, _ := chihead.Find(c.mux, r)
	return pattern, pattern != ""
}

type muxFinder interface {
	Handler(r *http.Request) (http.Handler, string)
}

type serveMuxFinder struct{ mux muxFinder }

// FindRoute returns the path part of the pattern the mux picks, as the
// gate does ("GET /users/{id}" is "/users/{id}").
func (s serveMuxFinder) FindRoute(r *http.Request) (string, bool) {
	_, pattern := s.mux.Handler(r)
	if pattern == "" {
		return "", false
	}
	if i := strings.IndexByte(pattern, '/'); i >= 0 {
		return pattern[i:], true
	}
	return pattern, true
}
