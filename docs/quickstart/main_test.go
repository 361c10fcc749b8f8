package main

import (
	"net/http"
	"testing"

	"github.com/svckit/svc/modules/authn/authntest"
	"github.com/svckit/svc/svctest"
)

func TestOrders(t *testing.T) {
	t.Setenv("SVC_REDIS_URL", "") // in memory, whatever the shell says
	iss := authntest.NewIssuer(t) // a real issuer on 127.0.0.1
	app := svctest.Start(t, service(iss.Discover()))
	writer := iss.Token(authntest.Subject("alice"), authntest.Scopes("read", "write"))
	reader := iss.Token(authntest.Subject("bob"), authntest.Scopes("read"))

	if r := app.Request("GET", "/me").Send(t); r.Status != http.StatusUnauthorized || r.Header.Get("WWW-Authenticate") != "Bearer" ||
		r.Header.Get("Content-Type") != "application/problem+json" {
		t.Fatalf("no token: %d %v", r.Status, r.Header)
	}
	if r := app.Request("POST", "/orders").Token(reader).Header("Idempotency-Key", "k1").
		JSON(map[string]string{"item": "pen"}).Send(t); r.Status != http.StatusForbidden {
		t.Fatalf("reader: %d %s", r.Status, r.Body)
	}

	first := app.Request("POST", "/orders").Token(writer).Header("Idempotency-Key", "k1").
		JSON(map[string]string{"item": "pen"}).Send(t)
	var o order
	first.DecodeJSON(t, &o)
	if first.Status != http.StatusCreated || o.ID != 1 || o.By != "alice" {
		t.Fatalf("create: %d %s", first.Status, first.Body)
	}
	again := app.Request("POST", "/orders").Token(writer).Header("Idempotency-Key", "k1").
		JSON(map[string]string{"item": "pen"}).Send(t)
	if again.Body != first.Body || again.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("retry: %d %v %s", again.Status, again.Header, again.Body)
	}
}
