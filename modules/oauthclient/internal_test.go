package oauthclient

import (
	"testing"
	"time"
)

func TestRandomJitterStaysWithinHalfTheWindow(t *testing.T) {
	for i := 0; i < 1000; i++ {
		if j := randomJitter(30 * time.Second); j < 0 || j > 30*time.Second {
			t.Fatalf("jitter %v", j)
		}
	}
	if randomJitter(0) != 0 {
		t.Fatal("jitter of an empty window")
	}
}

func TestExchangeKeyCoversEveryPart(t *testing.T) {
	c := &Client{clientID: "a"}
	p := &Pattern{client: c, grant: grantTokenExchange, target: "audience=x"}
	base := p.exchangeKey("caller")
	variants := []func(){
		func() { c.clientID = "b" },
		func() { p.grant = grantJWTBearer },
		func() { p.target = "audience=y" },
	}
	if p.exchangeKey("caller2") == base {
		t.Fatal("the caller token is not in the key")
	}
	for i, change := range variants {
		c.clientID, p.grant, p.target = "a", grantTokenExchange, "audience=x"
		change()
		if p.exchangeKey("caller") == base {
			t.Fatalf("variant %d gives the same key", i)
		}
	}
	// Length prefixes keep parts from running into each other.
	c.clientID, p.target = "ab", "c"
	k1 := p.exchangeKey("x")
	c.clientID, p.target = "a", "bc"
	if p.exchangeKey("x") == k1 {
		t.Fatal("ambiguous key")
	}
}

func TestWellKnownURLs(t *testing.T) {
	got := wellKnownURLs("https://as.example/tenant/")
	want := []string{"https://as.example/.well-known/oauth-authorization-server/tenant", "https://as.example/tenant/.well-known/openid-configuration"}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("got %v", got)
	}
}

func TestRetryAfterParsing(t *testing.T) {
	c := &Client{}
	now := time.Unix(1_700_000_000, 0)
	for v, want := range map[string]time.Duration{
		"5": 5 * time.Second, "0": time.Second, "7200": time.Hour,
		now.Add(time.Minute).UTC().Format("Mon, 02 Jan 2006 15:04:05 GMT"): time.Minute,
	} {
		if got, ok := c.retryAfter(v, now); !ok || got != want {
			t.Errorf("%q: %v %v, want %v", v, got, ok, want)
		}
	}
	for _, v := range []string{"", "-1", "soon", "1.5"} {
		if _, ok := c.retryAfter(v, now); ok {
			t.Errorf("%q accepted", v)
		}
	}
}
