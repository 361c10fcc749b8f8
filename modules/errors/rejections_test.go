package svcerrors_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	svcerrors "github.com/svckit/svc/modules/errors"
	"github.com/svckit/svc/modules/oauthclient"
)

// kindCase is one row of the spec's rejection table.
type kindCase struct {
	name       string
	err        error
	status     int
	anchor     string
	retryAfter string // expected Retry-After header, "" for none
}

func rejectionTable() []kindCase {
	return []kindCase{
		{"rate-limit", &svcerrors.RateLimitExceeded{RetryAfter: 1500 * time.Millisecond}, 429, "rate-limit-exceeded", "2"},
		{"circuit-breaker", &svcerrors.CircuitBreakerOpen{RetryAfter: 30 * time.Second}, 503, "circuit-breaker-open", "30"},
		{"circuit-breaker-forced", &svcerrors.CircuitBreakerOpen{}, 503, "circuit-breaker-open", ""},
		{"bulkhead", &svcerrors.BulkheadFull{}, 503, "bulkhead-full", ""},
		{"would-block", &svcerrors.WouldBlock{}, 503, "lock-unavailable", ""},
		{"lock-timeout", &svcerrors.LockTimeout{}, 503, "lock-unavailable", ""},
		{"admission", &svcerrors.AdmissionRefused{}, 503, "request-refused", ""},
		{"deadline", &svcerrors.DeadlineExceeded{Timeout: 2500 * time.Millisecond}, 504, "deadline-exceeded", ""},
		{"idempotency-conflict", &svcerrors.IdempotencyConflict{}, 422, "idempotency-key-reused", ""},
		{"idempotency-wait", &svcerrors.IdempotencyWaitTimeout{RetryAfter: 200 * time.Millisecond}, 409, "idempotency-in-flight", "1"},
		{"precondition-failed", &svcerrors.PreconditionFailed{}, 412, "precondition-failed", ""},
		{"precondition-required", &svcerrors.PreconditionRequired{}, 428, "precondition-required", ""},
		{"validation", &svcerrors.ValidationFailed{Errors: []svcerrors.FieldError{
			{Loc: []string{"body", "name"}, Msg: "field required", Type: "missing"},
			{Loc: []string{"query", "limit"}, Msg: "must be at most 100", Type: "less_than_equal"},
		}}, 422, "validation-failed", ""},
		{"validation-400", &svcerrors.ValidationFailed{Status: 400, Errors: []svcerrors.FieldError{
			{Loc: []string{"path", "id"}, Msg: "must be a UUID", Type: "uuid_parsing"},
		}}, 400, "validation-failed", ""},
		{"admission-kind-without-entry", laterTurnAway{}, 503, "request-refused", ""},
		// Regression: issue 14 item 20. Errors of a package that does not
		// import this one (oauthclient) are named through
		// internal/upstreamkind; before, they were unknown and answered 500.
		// Their messages must never reach the wire.
		{"upstream-token-unavailable", &oauthclient.UnavailableError{Reason: "server_error", RetryAfter: 29500 * time.Millisecond,
			Err: errors.New("token endpoint said: client_secret=hunter2")}, 503, "upstream-token-unavailable", "30"},
		{"upstream-token-unavailable-no-hint", &oauthclient.UnavailableError{Reason: "timeout"}, 503, "upstream-token-unavailable", ""},
		{"upstream-token-refused", &oauthclient.TokenRefusedError{Pattern: "billing", Status: 400, Code: "invalid_scope"}, 502, "upstream-token-refused", ""},
		// Issue 22 item 5: an outbound call its pattern's bulkhead refused.
		{"outbound-bulkhead-full", &oauthclient.BulkheadFullError{Pattern: "billing", Limit: 8}, 503, "bulkhead-full", ""},
	}
}

// laterTurnAway is a turn-away kind added after this package was written:
// it wraps the catch-all.
type laterTurnAway struct{}

func (laterTurnAway) Error() string { return "queue full: backend=redis-7 limit=500" }
func (laterTurnAway) Unwrap() error { return &svcerrors.AdmissionRefused{} }

func TestRejectionsAreFoundThroughWrapping(t *testing.T) {
	for _, tc := range rejectionTable() {
		t.Run(tc.name, func(t *testing.T) {
			wrapped := fmt.Errorf("handler: %w", fmt.Errorf("service: %w", tc.err))
			d, ok := svcerrors.Describe(wrapped)
			if !ok {
				t.Fatalf("Describe(%T) not known", tc.err)
			}
			if d.Status != tc.status || d.Anchor != tc.anchor {
				t.Fatalf("got %d %q, want %d %q", d.Status, d.Anchor, tc.status, tc.anchor)
			}
		})
	}
}

func TestTimeoutKindsAreDeadlineExceeded(t *testing.T) {
	for _, err := range []error{&svcerrors.DeadlineExceeded{}, &svcerrors.LockTimeout{}} {
		if !errors.Is(fmt.Errorf("wrapped: %w", err), context.DeadlineExceeded) {
			t.Errorf("%T does not satisfy errors.Is(err, context.DeadlineExceeded)", err)
		}
	}
	for _, err := range []error{&svcerrors.WouldBlock{}, &svcerrors.RateLimitExceeded{}} {
		if errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%T must not read as a deadline", err)
		}
	}
}

func TestNeverRendered(t *testing.T) {
	for _, err := range []error{
		errors.New("backend down"),
		context.DeadlineExceeded, // a bare timeout is left alone
		context.Canceled,
		fmt.Errorf("wrapped: %w", context.DeadlineExceeded),
		&oauthclient.ConfigError{Setting: "SVC_OAUTHCLIENT_ISSUER", Problem: "missing"}, // a setting to fix, not a turn-away
		oauthclient.ErrClosed,
	} {
		if _, ok := svcerrors.Describe(err); ok {
			t.Errorf("Describe(%v) is known; it must stay unhandled", err)
		}
		out := svcerrors.New().Render(err, "/x")
		if out.Known || out.Status != http.StatusInternalServerError {
			t.Errorf("Render(%v) = %d known=%v, want an unknown 500", err, out.Status, out.Known)
		}
	}
}

// outOfStock is an app's own kind, documented on the app's own page.
type outOfStock struct{}

func (outOfStock) Error() string { return "sku 42 out of stock in warehouse 7" }
func (outOfStock) Describe() svcerrors.Description {
	return svcerrors.Description{Kind: svcerrors.Kind{Status: http.StatusConflict, Anchor: "out-of-stock",
		Title: "Out of stock", Detail: "The item is out of stock.", DocsURL: "https://docs.shop.example/errors#"}}
}

// Regression: issue 14 item 20. An app's own kinds pointed at svc's docs,
// where their anchors do not exist; Kind.DocsURL names the app's page.
func TestAppKindNamesItsOwnDocs(t *testing.T) {
	const want = "https://docs.shop.example/errors#out-of-stock"
	cases := []struct {
		name   string
		res    *svcerrors.Responses
		member string
		want   any
	}{
		{"rfc9457", svcerrors.New(), "type", want},
		{"rfc9457 with a docs URL of its own", svcerrors.New(svcerrors.DocsURL("https://svc-docs.example/errors")), "type", want},
		{"tmf630 kind docs", svcerrors.NewTMF("SHOP", svcerrors.KindDocs), "referenceError", want},
		{"tmf630 template", svcerrors.NewTMF("SHOP", "{errors_doc_url}?kind={anchor}"), "referenceError", "https://docs.shop.example/errors?kind=out-of-stock"},
		{"tmf630 fixed address", svcerrors.NewTMF("SHOP", "https://errors.example.test/all"), "referenceError", "https://errors.example.test/all"},
		{"tmf630 no reference", svcerrors.NewTMF("SHOP", ""), "referenceError", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp := serveRouted(t, tc.res, outOfStock{})
			var m map[string]any
			if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != http.StatusConflict || m[tc.member] != tc.want {
				t.Fatalf("status %d, %s = %v, want %v", resp.StatusCode, tc.member, m[tc.member], tc.want)
			}
			if m["code"] != nil && m["code"] != "SHOP-OUT-OF-STOCK" {
				t.Errorf("code = %v", m["code"])
			}
			checkHeaders(t, resp.Header, tc.res.MediaType(), "")
			// svc's own kinds keep pointing at the format's page.
			var own map[string]any
			if err := json.Unmarshal(tc.res.Render(&svcerrors.BulkheadFull{}, "/").Body, &own); err != nil {
				t.Fatal(err)
			}
			for _, v := range []any{own["type"], own["referenceError"]} {
				if s, ok := v.(string); ok && strings.Contains(s, "shop.example") {
					t.Errorf("svc's own kind points at the app's docs: %s", s)
				}
			}
		})
	}
}
