package bearer

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// Regression: issue 34 item 5. After the provider rotates its keys, a
// token of the new key was refused unknown-key until the retry interval
// (30 s by default) had passed since the last fetch; now it fetches once
// the short rotation cooldown has, and forged kids still cost at most one
// fetch per cooldown.
func TestKeysRotationAdmitsTheNewKidWithinTheCooldown(t *testing.T) {
	k := keys(t)
	clock := newStepClock()
	srv := newJWKSServer(t, jwksJSON(t, jwkJSON(t, &k.p256.PublicKey, "old", "")))
	// RetryInterval at its default: the cooldown alone opens the window.
	v := remoteVerifier(t, srv.URL, clock, RotationCooldown(5*time.Second))
	waitKeys(t, v)
	initial := srv.requests.Load()

	forged := func(round int) { floodUnknownKids(t, v, k, fmt.Sprintf("forged-%d", round), 50) }
	fetches := func() int32 { return srv.requests.Load() - initial }

	// Inside the cooldown of the first load, forged kids fetch nothing.
	forged(0)
	clock.Advance(4 * time.Second)
	forged(1)
	if got := fetches(); got != 0 {
		t.Fatalf("forged kids inside the cooldown fetched %d times, want 0", got)
	}

	// The provider rotates; 5 s after the last fetch (well inside the
	// 30 s retry interval) a token of the new key is admitted, at the
	// cost of one fetch.
	srv.setBody(jwksJSON(t, jwkJSON(t, &k.p256.PublicKey, "old", ""), jwkJSON(t, &k.p384.PublicKey, "new", "")))
	clock.Advance(time.Second)
	p, err := v.Verify(context.Background(), joseSign(t, jose.ES384, k.p384, "new", validClaims()))
	if err != nil || !p.Authenticated {
		t.Fatalf("token of the rotated-in key, one cooldown after the last fetch: %v", err)
	}
	if got := fetches(); got != 1 {
		t.Fatalf("%d fetches for the rotation, want 1", got)
	}

	// Forged kids after it, a flood every 2 s from 0 s to 8 s after that
	// fetch: only the flood at 6 s is a cooldown past a fetch, so one more.
	for round := 2; round < 7; round++ {
		forged(round)
		clock.Advance(2 * time.Second)
	}
	if got := fetches(); got != 2 {
		t.Fatalf("%d fetches after five floods over 8 s, want 2 (one per 5 s cooldown)", got)
	}
}

// The cooldown never outlasts the retry interval, and after a failed
// fetch the retry interval holds: a provider that is down is not asked
// again sooner by tokens naming unknown kids.
func TestKeysRotationCooldownYieldsToTheRetryIntervalAfterAFailure(t *testing.T) {
	k := keys(t)
	clock := newStepClock()
	srv := newJWKSServer(t, jwksJSON(t, jwkJSON(t, &k.p256.PublicKey, "p256", "")))
	v := remoteVerifier(t, srv.URL, clock, RetryInterval(time.Minute), RotationCooldown(time.Second))
	waitKeys(t, v)
	initial := srv.requests.Load()
	srv.status.Store(http.StatusBadGateway)
	unknown := rawSign(t, "ES256", k.p256, `{"alg":"ES256","kid":"other"}`, payloadOf(t, nil))
	verify := func() {
		t.Helper()
		if r := reasonOf(t, func() error { _, err := v.Verify(context.Background(), unknown); return err }()); r != ReasonUnknownKey {
			t.Fatalf("reason %s", r)
		}
	}

	clock.Advance(time.Second)
	verify() // fetches, and fails
	clock.Advance(30 * time.Second)
	verify() // the failure is remembered for the retry interval
	if got := srv.requests.Load() - initial; got != 1 {
		t.Fatalf("%d fetches within the retry interval of a failure, want 1", got)
	}
	clock.Advance(30 * time.Second)
	verify()
	if got := srv.requests.Load() - initial; got != 2 {
		t.Fatalf("%d fetches once the retry interval passed, want 2", got)
	}

	if w := JWKSURL(srv.URL, testIssuer, testAudience, RotationCooldown(time.Hour)).keys.(*keyManager).cooldown; w != defaultRetryInterval {
		t.Fatalf("cooldown above the retry interval: %v, want it capped at %v", w, defaultRetryInterval)
	}
	if err := JWKSURL(srv.URL, testIssuer, testAudience, RotationCooldown(0)).err; err == nil {
		t.Fatal("RotationCooldown(0) accepted")
	}
}
