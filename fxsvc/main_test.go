package fxsvc_test

import (
	"bytes"
	"net/http"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"go.uber.org/fx"

	"github.com/svckit/svc/fxsvc"
)

func TestCheckListsRoutesWithoutStarting(t *testing.T) {
	r := chi.NewRouter()
	r.Get("/b", func(http.ResponseWriter, *http.Request) {})
	r.Route("/a", func(r chi.Router) {
		r.Post("/{id}", func(http.ResponseWriter, *http.Request) {})
	})
	var out, errOut bytes.Buffer
	// Serve's address is taken by nothing: check never listens.
	code := fxsvc.Run([]string{"check"}, &out, &errOut, fx.Supply(r), fxsvc.Errors(), fxsvc.Serve(fxsvc.Addr("256.0.0.1:1")))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "POST  /a/{id}  unprotected") || !strings.HasPrefix(lines[1], "GET   /b") {
		t.Fatalf("check output:\n%s", out.String())
	}
}

func TestCheckReportsGraphErrors(t *testing.T) {
	var out, errOut bytes.Buffer
	code := fxsvc.Run([]string{"check"}, &out, &errOut, fxsvc.Serve())
	if code != 1 || !strings.Contains(errOut.String(), "provides no router") {
		t.Fatalf("exit %d, stderr %q", code, errOut.String())
	}
}

func TestUnknownCommand(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := fxsvc.Run([]string{"serve-please"}, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), "unknown command") {
		t.Fatalf("exit %d, %q", code, errOut.String())
	}
}

func TestRunFailsBeforeStartingOnAGraphError(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := fxsvc.Run(nil, &out, &errOut, fxsvc.Errors(), fxsvc.Errors()); code != 1 ||
		!strings.Contains(errOut.String(), "svc: only one error format may be registered per app") {
		t.Fatalf("exit %d, %q", code, errOut.String())
	}
}
