package svcerrors_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	svcerrors "github.com/svckit/svc/modules/errors"
)

// Regression: issue 25 item 4.
// A refusal closes the connection of an HTTP/1 request that has a body (its
// handler never read it), and only then: keep-alive is kept for the rest,
// and an HTTP/2 stream ends alone.
func TestRefuseClosesTheConnectionOfAnUnreadBody(t *testing.T) {
	for _, tc := range []struct {
		name   string
		method string
		body   string
		length int64 // -1: chunked
		proto  int
		close  bool
	}{
		{"POST with a body", http.MethodPost, "a=1", 3, 1, true},
		{"chunked body", http.MethodPost, "a=1", -1, 1, true},
		{"GET without a body", http.MethodGet, "", 0, 1, false},
		{"empty body", http.MethodPost, "", 0, 1, false},
		{"HTTP/2 with a body", http.MethodPost, "a=1", 3, 2, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var req *http.Request
			if tc.body == "" {
				req = httptest.NewRequest(tc.method, "/orders", nil)
			} else {
				req = httptest.NewRequest(tc.method, "/orders", strings.NewReader(tc.body))
				req.ContentLength = tc.length
			}
			req.ProtoMajor = tc.proto
			rec := httptest.NewRecorder()
			svcerrors.Refuse(rec, req, &svcerrors.RateLimitExceeded{})
			if rec.Code != http.StatusTooManyRequests || rec.Header().Get("Content-Type") != svcerrors.ProblemMediaType {
				t.Fatalf("%d %q", rec.Code, rec.Header().Get("Content-Type"))
			}
			if got := rec.Header().Get("Connection") == "close"; got != tc.close {
				t.Fatalf("Connection %q, want close=%v", rec.Header().Get("Connection"), tc.close)
			}
		})
	}
}
