package authnhuma

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/danielgtaylor/huma/v2"
)

// The handler an operation with notes is registered in allocates nothing
// and runs only the handler it was given.
func TestANotedHandlerServesAsTheHandlerAlone(t *testing.T) {
	ran := 0
	fn := http.HandlerFunc(func(http.ResponseWriter, *http.Request) { ran++ })
	op := &huma.Operation{}
	notes(func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(http.ResponseWriter, *http.Request) { t.Fatal("a noted marker ran") })
	})(op)
	h := noted(op, fn)
	if _, ok := h.(*notedHandler); !ok {
		t.Fatalf("registered as %T", h)
	}
	w, r := httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil)
	if allocs := testing.AllocsPerRun(100, func() { h.ServeHTTP(w, r) }); allocs != 0 {
		t.Fatalf("%v allocations per request", allocs)
	}
	if ran != 101 {
		t.Fatalf("the handler ran %d times, want 101", ran)
	}
	if h := noted(&huma.Operation{}, fn); !isHandlerFunc(h) {
		t.Fatalf("an operation without notes is registered as %T", h)
	}
}

func isHandlerFunc(h http.Handler) bool {
	_, ok := h.(http.HandlerFunc)
	return ok
}
