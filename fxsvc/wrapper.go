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
	// Wrap puts the part around h. An error refuses the set-up: the app
	// fails to build, with the error naming what to fix.
	Wrap func(h http.Handler) (http.Handler, error)
}

// Wrap adds w to the wrappers [Serve] applies.
func Wrap(w Wrapper) fx.Option {
	return fx.Supply(fx.Annotated{Group: wrapperGroup, Target: w})
}

func applyWrappers(h http.Handler, ws []Wrapper) (http.Handler, error) {
	sorted := append([]Wrapper(nil), ws...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Order > sorted[j].Order })
	for _, w := range sorted {
		var err error
		if h, err = w.Wrap(h); err != nil {
			return nil, err
		}
	}
	return h, nil
}
