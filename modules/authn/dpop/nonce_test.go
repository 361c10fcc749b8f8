package dpop_test

import (
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/svckit/svc/modules/authn/dpop"
)

func TestNonces(t *testing.T) {
	secret := []byte(strings.Repeat("s", 32))
	es := newES256(t)
	const url = "https://api.example/x"
	clock := now
	replica := func() (*dpop.Verifier, *dpop.NonceSource) {
		n, err := dpop.NewNonceSource(secret, 5*time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		v := newVerifier(t, dpop.RequireNonce(n))
		dpop.SetClock(v, func() time.Time { return clock })
		return v, n
	}
	a, na := replica()
	b, nb := replica()
	send := func(v *dpop.Verifier, nonce string) error {
		p := es.proof("GET", url, clock.Unix())
		if nonce != "" {
			p.claims["nonce"] = nonce
		}
		_, err := v.Verify(request("GET", url, p.String()), "")
		return err
	}
	// Without a nonce: use_dpop_nonce, with the nonce to use.
	err := send(a, "")
	var e *dpop.Error
	if !errors.As(err, &e) || e.Reason != dpop.ReasonNonce || e.Code() != "use_dpop_nonce" || e.Nonce != na.Current() {
		t.Fatalf("no nonce: %#v", err)
	}
	issued := e.Nonce
	// Another replica with the same secret issues and accepts the same.
	if nb.Current() != issued {
		t.Fatal("replicas disagree")
	}
	if err := send(b, issued); err != nil {
		t.Fatalf("other replica: %v", err)
	}
	// Rotated after a step; the previous one is still accepted.
	clock = clock.Add(5 * time.Minute)
	if na.Current() == issued {
		t.Fatal("not rotated")
	}
	if err := send(a, issued); err != nil {
		t.Fatalf("previous step's nonce: %v", err)
	}
	// Two steps on it is stale, and the refusal carries the current one.
	clock = clock.Add(5 * time.Minute)
	err = send(a, issued)
	if !errors.As(err, &e) || e.Reason != dpop.ReasonNonce || e.Nonce != na.Current() {
		t.Fatalf("stale nonce: %#v", err)
	}
	// Another secret's nonce, and garbage, are refused.
	n3, _ := dpop.NewNonceSource([]byte(strings.Repeat("t", 32)), 5*time.Minute)
	for _, bad := range []string{n3.Current(), "x", strings.Repeat("A", 24)} {
		if err := send(a, bad); !errors.As(err, &e) || e.Reason != dpop.ReasonNonce {
			t.Fatalf("nonce %q: %v", bad, err)
		}
	}
}

func TestNewNonceSource(t *testing.T) {
	if _, err := dpop.NewNonceSource(make([]byte, 31), time.Minute); err == nil || !strings.Contains(err.Error(), "at least 32") {
		t.Fatal(err)
	}
	if _, err := dpop.NewNonceSource(make([]byte, 32), time.Millisecond); err == nil || !strings.Contains(err.Error(), "at least 1s") {
		t.Fatal(err)
	}
}

// A proof with the previous step's nonce is admitted and names the current
// one for the answer's DPoP-Nonce; one with the current nonce names none.
func TestPreviousNonceNamesTheCurrentOne(t *testing.T) {
	es := newES256(t)
	const url = "https://api.example/x"
	var clock atomic.Int64
	clock.Store(now.UnixNano())
	n, err := dpop.NewNonceSource([]byte(strings.Repeat("s", 32)), 5*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	v := newVerifier(t, dpop.RequireNonce(n))
	dpop.SetClock(v, func() time.Time { return time.Unix(0, clock.Load()) })
	verify := func(nonce string) dpop.Proof {
		t.Helper()
		p := es.proof("GET", url, time.Unix(0, clock.Load()).Unix())
		p.claims["nonce"] = nonce
		got, err := v.Verify(request("GET", url, p.String()), "")
		if err != nil {
			t.Fatalf("nonce %q: %v", nonce, err)
		}
		return got
	}
	first := n.Current()
	if p := verify(first); p.Nonce != "" {
		t.Fatalf("the current nonce named %q", p.Nonce)
	}
	clock.Add(int64(5 * time.Minute))
	if p := verify(first); p.Nonce != n.Current() || p.Nonce == first {
		t.Fatalf("the previous step's nonce named %q, want the current %q", p.Nonce, n.Current())
	}
	if p := verify(n.Current()); p.Nonce != "" {
		t.Fatalf("the current nonce named %q", p.Nonce)
	}
}
