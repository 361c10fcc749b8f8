package fxsvc

import (
	"net/http"
	"sort"

	"go.uber.org/fx"
)

// wrapperGroup is the fx value group [Serve] collects its wrappers from.
const wrapperGroup = "svc.http.wrappers"

// Wrapper is an HTTP-level part that [Serve] puts around the app's router.
// Lower Order wraps further out: the error format (order 0) sees every
// answer, the authentication gate (order 100) sits inside it.
type Wrapper struct {
	Name  string
	Order int
	Wrap  func(http.Handler) http.Handler
}

// Wrap adds w to the wrappers [Serve] applies.
func Wrap(w Wrapper) fx.Option {
	return fx.Supply(fx.Annotated{Group: wrapperGroup, Target: w})
}

func applyWrappers(h http.Handler, ws []Wrapper) http.Handler {
	sorted := append([]Wrapper(nil), ws...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Order > sorted[j].Order })
	for _, w := range sorted {
		h = w.Wrap(h)
	}
	return h
}
