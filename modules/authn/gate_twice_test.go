package authn_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/svckit/svc/modules/authn"
)

// A ServeMux pattern registered twice (the second Anonymous) is refused
// when registered, naming both registrations (issue 24 item 8).
func TestServeMuxPatternRegisteredTwiceIsRefused(t *testing.T) {
	mux := authn.NewServeMux()
	mux.Handle("GET /report", authn.Require("read")(okH()))
	got := func() (msg string) {
		defer func() { msg = fmt.Sprint(recover()) }()
		mux.Handle("GET /report", authn.Anonymous(okH()))
		return ""
	}()
	if !strings.Contains(got, `"GET /report" is registered twice`) || strings.Count(got, "gate_twice_test.go:") != 2 ||
		!strings.Contains(got, "(authn.Require(read))") || !strings.Contains(got, "(authn.Anonymous)") {
		t.Fatalf("panic %q does not name both registrations", got)
	}
	if routes := mux.Routes(); len(routes) != 1 {
		t.Fatalf("the refused registration was recorded: %v", routes)
	}
}
