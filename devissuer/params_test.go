package devissuer_test

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/svckit/svc/devissuer"
)

// /mint and every grant put acr, amr, auth_time, sid and extra claims in
// the token (issue 33: /mint?acr=mfa dropped acr), and refuse a parameter
// they do not understand rather than drop it.
func TestStepUpClaimsOnMintAndGrants(t *testing.T) {
	t.Parallel()
	iss := start(t, devissuer.Options{})
	q := "sub=alice&scope=read&acr=mfa&amr=pwd+otp&auth_time=5m&sid=s-1&extra=" + url.QueryEscape(`{"tenant":"acme","level":2}`)
	status, body := getJSON(t, iss.URL+"/mint?"+q)
	if status != 200 {
		t.Fatalf("%d %v", status, body)
	}
	c := claimsOf(t, body["access_token"].(string))
	at, _ := c["auth_time"].(float64)
	amr, _ := c["amr"].([]any)
	if c["acr"] != "mfa" || len(amr) != 2 || amr[1] != "otp" || c["sid"] != "s-1" || c["tenant"] != "acme" || c["level"] != float64(2) ||
		time.Since(time.Unix(int64(at), 0)) < 4*time.Minute || time.Since(time.Unix(int64(at), 0)) > 6*time.Minute {
		t.Fatalf("claims %v", c)
	}
	status, _, body = send(t, iss.URL+"/token", url.Values{"grant_type": {"client_credentials"}, "acr": {"urn:mace:incommon:iap:silver"}, "auth_time": {"now"}, "sid": {"s-2"}}, basic(iss))
	if c := claimsOf(t, body["access_token"].(string)); status != 200 || c["acr"] != "urn:mace:incommon:iap:silver" || c["sid"] != "s-2" || c["auth_time"] == nil {
		t.Fatalf("token endpoint: %d %v", status, c)
	}

	for name, q := range map[string]string{
		"unknown":     "sub=alice&acr=mfa&acr_values=mfa",
		"repeated":    "sub=alice&scope=a&scope=b",
		"bad time":    "sub=alice&auth_time=yesterday",
		"bad extra":   "sub=alice&extra=[1]",
		"bad format":  "sub=alice&format=paseto",
		"bad refresh": "sub=alice&refresh=maybe",
	} {
		status, body := getJSON(t, iss.URL+"/mint?"+q)
		if status != 400 || body["error"] != "invalid_request" || body["error_description"] == "" {
			t.Errorf("/mint %s: %d %v", name, status, body)
		}
	}
	status, _, body = send(t, iss.URL+"/token", url.Values{"grant_type": {"client_credentials"}, "acr_values": {"mfa"}}, basic(iss))
	if desc, _ := body["error_description"].(string); status != 400 || body["error"] != "invalid_request" || !strings.Contains(desc, `"acr_values"`) {
		t.Fatalf("unknown parameter at the token endpoint: %d %v", status, body)
	}
}
