package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/svckit/svc/fxsvc"
	"github.com/svckit/svc/modules/authn/authntest"
	"github.com/svckit/svc/modules/oauthclient/oauthclienttest"
	"github.com/svckit/svc/svctest"
)

// The example as deployed: trusting a configured issuer (a test issuer from
// the kit) and calling out through a configured authorization server (the
// kit's token server), started whole by svctest.
func TestTheExampleWithAConfiguredIssuerAndTokenServer(t *testing.T) {
	iss := authntest.NewIssuer(t)
	ts := oauthclienttest.NewServer(t)
	ts.IssueWith(func(rq oauthclienttest.Request) string { // JWTs the example's own gate accepts
		return iss.Token(authntest.Subject(rq.ClientID), authntest.Scopes(rq.Form.Get("scope")))
	})
	t.Setenv("SVC_AUTHN_ISSUER", iss.URL)
	t.Setenv("SVC_AUTHN_AUDIENCE", iss.Audience)
	t.Setenv("SVC_OAUTHCLIENT_ISSUER", ts.URL)
	t.Setenv("SVC_OAUTHCLIENT_CLIENT_ID", oauthclienttest.ClientID)
	t.Setenv("SVC_OAUTHCLIENT_CLIENT_SECRET", oauthclienttest.ClientSecret)
	t.Setenv("SVC_METRICS_EXPORTER", "none")
	app := svctest.Start(t, options()...)

	reader := iss.Token(authntest.Subject("alice"), authntest.Scopes("read"))
	admin := iss.Token(authntest.Subject("root"), authntest.Scopes("read", "admin"))
	for _, c := range []struct {
		path, token string
		status      int
	}{
		{"/me", reader, 200},
		{"/me", "", 401},
		{"/admin", reader, 403},
		{"/admin", admin, 200},
		{"/hello", "", 200},
	} {
		if r := app.Get(t, c.path, c.token); r.Status != c.status {
			t.Errorf("GET %s (token %t): %d %s, want %d", c.path, c.token != "", r.Status, r.Body, c.status)
		}
	}
	if r := app.Get(t, "/billing", reader); r.Status != 200 {
		t.Fatalf("GET /billing: %d %s", r.Status, r.Body)
	}
	if ts.Fetches() != 1 || ts.Requests()[0].Form.Get("scope") != "invoices:read" {
		t.Fatalf("token server saw %d fetches: %+v", ts.Fetches(), ts.Requests())
	}
}

// check prints the same listing every time, notes in a fixed order, though
// fx hands value groups over in no fixed order.
func TestCheckPrintsTheSameEveryTime(t *testing.T) {
	var first string
	for i := range 8 {
		var out, errOut bytes.Buffer
		if code := fxsvc.Run([]string{"check"}, &out, &errOut, options()...); code != 0 {
			t.Fatalf("exit %d: %s", code, errOut.String())
		}
		if i == 0 {
			first = out.String()
			if !strings.Contains(first, "idempotency=required ratelimit=10/s burst 20") {
				t.Fatalf("POST /orders notes not in order:\n%s", first)
			}
		} else if out.String() != first {
			t.Fatalf("run %d differs:\n%s\nfirst:\n%s", i, out.String(), first)
		}
	}
}

// docs/check.md shows check's whole output for the example: it is the real
// one, word for word.
func TestTheCheckPageShowsTheCheckOutput(t *testing.T) {
	page, err := os.ReadFile("../../docs/check.md")
	if err != nil {
		t.Fatal(err)
	}
	const command = "go run ./cmd/example check      #"
	start := strings.Index(string(page), command)
	if start < 0 {
		t.Fatalf("docs/check.md has no line %q", command)
	}
	shown := string(page[start:])
	shown = shown[strings.Index(shown, "\n")+1:]
	shown = shown[:strings.Index(shown, "```")]
	var out, errOut bytes.Buffer
	if code := fxsvc.Run([]string{"check"}, &out, &errOut, options()...); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	var want []string
	for _, line := range strings.Split(strings.TrimRight(out.String(), "\n"), "\n") {
		want = append(want, strings.TrimRight("# "+line, " "))
	}
	if got := strings.TrimRight(shown, "\n"); got != strings.Join(want, "\n") {
		t.Fatalf("docs/check.md shows:\n%s\ncheck prints (regenerate the block with `go run ./cmd/example check | sed 's/ *$//; s/^/# /'`):\n%s",
			got, strings.Join(want, "\n"))
	}
}
