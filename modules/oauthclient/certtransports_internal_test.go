package oauthclient

import (
	"net/http"
	"testing"
)

// A base keeps a transport for each of the last maxCertTransports
// certificates: one used again is the same transport (its pooled
// connections with it), and the least recently used is evicted past that.
func TestCertTransportsKeepTheRecentCertificates(t *testing.T) {
	ct := &certTransports{base: &http.Transport{}}
	certs := make([]*certificate, maxCertTransports+1)
	for i := range certs {
		certs[i] = &certificate{}
		certs[i].sum[0] = byte(i + 1)
	}
	first := ct.get(certs[0], nil)
	for _, c := range certs[1:maxCertTransports] {
		ct.get(c, nil)
	}
	if ct.get(certs[0], nil) != first {
		t.Fatal("a kept certificate got a new transport")
	}
	// certs[1] used before certs[0], then two certificates more: certs[1]
	// is the least recently used when the new one comes, and goes.
	second := ct.get(certs[1], nil)
	ct.get(certs[0], nil)
	for _, c := range certs[2:] {
		ct.get(c, nil)
	}
	if len(ct.kept) != maxCertTransports {
		t.Fatalf("%d transports kept, want %d", len(ct.kept), maxCertTransports)
	}
	if ct.get(certs[0], nil) != first {
		t.Fatal("a recently used certificate was evicted")
	}
	if ct.get(certs[1], nil) == second {
		t.Fatal("the least recently used certificate was not evicted")
	}
}
