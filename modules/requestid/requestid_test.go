package requestid_test

import (
	"net/http/httptest"
	"testing"

	"github.com/svckit/svc/modules/requestid"
)

func TestFromWithoutAnID(t *testing.T) {
	if id := requestid.From(httptest.NewRequest("GET", "/", nil).Context()); id != "" {
		t.Fatalf("From = %q without an ID given", id)
	}
}
