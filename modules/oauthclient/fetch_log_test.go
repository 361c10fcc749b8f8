package oauthclient_test

import (
	"context"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/svckit/svc/modules/oauthclient"
)

// An authorization server that is down fails each fetch (one per retry
// interval, 10 s here): one warning per pattern and error type a minute,
// the next carrying the count held back; another error type, or another
// pattern, has its own line; the first success after failures is written
// once.
func TestFailedFetchesAreLoggedOncePerKindAMinute(t *testing.T) {
	s := newTokenServer(t)
	clk := newClock()
	core, logs := observer.New(zap.InfoLevel)
	c := newClient(t, s, clk, oauthclient.Logger(zap.New(core)))
	billing := newCC(t, c, "billing")
	ledger := newCC(t, c, "ledger")
	fetch := func(p *oauthclient.Pattern, a answer) {
		t.Helper()
		s.then(a)
		clk.Advance(11 * time.Second) // past the remembered failure
		_, _ = p.Token(context.Background())
	}
	down := answer{status: 503, body: "down"}
	ok := answer{status: 200, body: `{"access_token":"t","token_type":"Bearer","expires_in":3600}`}
	// The clock after each fetch, and what the log should do with it.
	fetch(billing, down)                                                    // 0:11 written
	fetch(billing, down)                                                    // 0:22 held back
	fetch(billing, down)                                                    // 0:33 held back
	fetch(billing, answer{status: 401, body: `{"error":"invalid_client"}`}) // 0:44 another type: written
	fetch(ledger, down)                                                     // 0:55 another pattern: written
	clk.Advance(9 * time.Second)                                            // 1:04
	fetch(billing, down)                                                    // 1:15 a minute after 0:11: written, 2 held back
	fetch(billing, ok)                                                      // 1:26 works again

	failed := logs.FilterMessage("svc.oauthclient token fetch failed").All()
	want := []struct {
		pattern, errType string
		suppressed       int64
	}{
		{"billing", "server_error", 0},
		{"billing", "invalid_client", 0},
		{"ledger", "server_error", 0},
		{"billing", "server_error", 2},
	}
	if len(failed) != len(want) {
		t.Fatalf("%d failure lines, want %d: %v", len(failed), len(want), failed)
	}
	for i, w := range want {
		ctx := failed[i].ContextMap()
		got, _ := ctx["suppressed"].(int64)
		if failed[i].Level != zap.WarnLevel || ctx["svc.oauthclient.pattern"] != w.pattern ||
			ctx["error.type"] != w.errType || got != w.suppressed {
			t.Errorf("line %d: %v %v, want %+v", i, failed[i].Level, ctx, w)
		}
	}
	again := logs.FilterMessage("svc.oauthclient token fetch works again").All()
	if len(again) != 1 {
		t.Fatalf("%d recovery lines: %v", len(again), logs.All())
	}
	ctx := again[0].ContextMap()
	if ctx["svc.oauthclient.pattern"] != "billing" || ctx["failed_fetches"] != int64(5) ||
		ctx["failing_for"] != 75*time.Second {
		t.Fatalf("recovery line %v", ctx)
	}

	// Recovered, billing's next outage is written at once.
	clk.Advance(2 * time.Hour)
	s.then(down)
	_, _ = billing.Token(context.Background())
	if n := logs.FilterMessage("svc.oauthclient token fetch failed").Len(); n != len(want)+1 {
		t.Fatalf("%d failure lines after the recovery, want %d", n, len(want)+1)
	}
}
