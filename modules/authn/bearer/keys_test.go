package bearer

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

// stepClock is a clock tests move by hand.
type stepClock struct{ ns atomic.Int64 }

func newStepClock() *stepClock {
	c := &stepClock{}
	c.ns.Store(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano())
	return c
}
func (c *stepClock) Now() time.Time          { return time.Unix(0, c.ns.Load()) }
func (c *stepClock) Advance(d time.Duration) { c.ns.Add(int64(d)) }

// remoteVerifier builds a JWKS verifier whose fetch pacing follows clock
// (nil: the real clock) and opens it.
func remoteVerifier(t *testing.T, url string, clock *stepClock, opts ...VerifierOption) *JWTVerifier {
	t.Helper()
	opts = append([]VerifierOption{Clock(fixedClock())}, opts...)
	v := JWKSURL(url, testIssuer, testAudience, opts...)
	if v.err != nil {
		t.Fatal(v.err)
	}
	if clock != nil {
		v.keys.(*keyManager).now = clock.Now
	}
	return openVerifier(t, v)
}

func TestKeysOpenReturnsAtOnceAndVerifyAnswersUnavailableUntilKeysArrive(t *testing.T) {
	k := keys(t)
	srv := newJWKSServer(t, jwksJSON(t, jwkJSON(t, &k.p256.PublicKey, "p256", "")))
	srv.gate = make(chan struct{})
	v := remoteVerifier(t, srv.URL, nil) // Open returns although the fetch is held
	tok := joseSign(t, jose.ES256, k.p256, "p256", validClaims())

	_, err := v.Verify(context.Background(), tok)
	if !errors.Is(err, ErrKeysUnavailable) {
		t.Fatalf("before keys: %v, want ErrKeysUnavailable", err)
	}
	var te *TokenError
	if errors.As(err, &te) {
		t.Fatal("keys unavailable must not be a token refusal")
	}
	// A malformed token is still refused for what it is.
	if _, err := v.Verify(context.Background(), "x.y"); reasonOf(t, err) != ReasonMalformed {
		t.Fatalf("malformed token before keys: %v", err)
	}
	srv.gate <- struct{}{}
	waitKeys(t, v)
	if _, err := v.Verify(context.Background(), tok); err != nil {
		t.Fatalf("after keys: %v", err)
	}
}

func TestKeysProviderDownAtStartIsRetriedEveryInterval(t *testing.T) {
	k := keys(t)
	srv := newJWKSServer(t, jwksJSON(t, jwkJSON(t, &k.p256.PublicKey, "p256", "")))
	srv.status.Store(http.StatusServiceUnavailable)
	v := remoteVerifier(t, srv.URL, nil, RetryInterval(5*time.Millisecond))
	tok := joseSign(t, jose.ES256, k.p256, "p256", validClaims())

	deadline := time.Now().Add(10 * time.Second)
	for srv.requests.Load() < 2 {
		if time.Now().After(deadline) {
			t.Fatal("the failed fetch was not retried")
		}
		time.Sleep(time.Millisecond)
	}
	_, err := v.Verify(context.Background(), tok)
	if !errors.Is(err, ErrKeysUnavailable) || !strings.Contains(err.Error(), "status 503") {
		t.Fatalf("err = %v, want ErrKeysUnavailable with the fetch failure", err)
	}
	srv.status.Store(http.StatusOK)
	waitKeys(t, v)
	if _, err := v.Verify(context.Background(), tok); err != nil {
		t.Fatal(err)
	}
}

func TestKeysVerifierNotOpenedSaysSo(t *testing.T) {
	v := JWKSURL("https://keys.example/jwks", testIssuer, testAudience)
	_, err := v.Verify(context.Background(), joseSign(t, jose.ES256, keys(t).p256, "p256", validClaims()))
	if !errors.Is(err, ErrKeysUnavailable) || !strings.Contains(err.Error(), "not opened") {
		t.Fatalf("err = %v", err)
	}
}

func TestKeysFetchAsksForAFreshCopy(t *testing.T) {
	k := keys(t)
	srv := newJWKSServer(t, jwksJSON(t, jwkJSON(t, &k.p256.PublicKey, "p256", "")))
	v := remoteVerifier(t, srv.URL, nil)
	waitKeys(t, v)
	if got := *srv.cacheCtl.Load(); got != "no-cache" {
		t.Fatalf("Cache-Control = %q, want no-cache", got)
	}
}

func TestKeysUnknownKidWaitsForOneRefresh(t *testing.T) {
	k := keys(t)
	clock := newStepClock()
	srv := newJWKSServer(t, jwksJSON(t, jwkJSON(t, &k.p256.PublicKey, "old", "")))
	v := remoteVerifier(t, srv.URL, clock, RetryInterval(time.Minute))
	waitKeys(t, v)

	// The provider rotates: the new key is published, a token signed with
	// it arrives once the retry interval has passed.
	srv.setBody(jwksJSON(t, jwkJSON(t, &k.p256.PublicKey, "old", ""), jwkJSON(t, &k.p384.PublicKey, "new", "")))
	clock.Advance(time.Minute)
	before := srv.requests.Load()
	p, err := v.Verify(context.Background(), joseSign(t, jose.ES384, k.p384, "new", validClaims()))
	if err != nil || !p.Authenticated {
		t.Fatalf("token of the new key: %v", err)
	}
	if got := srv.requests.Load() - before; got != 1 {
		t.Fatalf("%d fetches, want 1", got)
	}
}

func TestKeysFloodOfUnknownKidsCausesOneFetchPerInterval(t *testing.T) {
	k := keys(t)
	clock := newStepClock()
	srv := newJWKSServer(t, jwksJSON(t, jwkJSON(t, &k.p256.PublicKey, "p256", "")))
	v := remoteVerifier(t, srv.URL, clock, RetryInterval(time.Minute))
	waitKeys(t, v)
	initial := srv.requests.Load()

	flood := func() { floodUnknownKids(t, v, k, "kid", 100) }

	// Within the interval of the first load: nothing is fetched.
	flood()
	if got := srv.requests.Load() - initial; got != 0 {
		t.Fatalf("flood within the interval fetched %d times", got)
	}
	// After the interval: the whole flood shares one fetch.
	clock.Advance(time.Minute)
	flood()
	if got := srv.requests.Load() - initial; got != 1 {
		t.Fatalf("flood after the interval fetched %d times, want 1", got)
	}
	// And that fetch is remembered for the next interval.
	flood()
	if got := srv.requests.Load() - initial; got != 1 {
		t.Fatalf("second flood fetched again (%d)", got)
	}
}

// floodUnknownKids sends n tokens at once, each naming a kid the set does
// not hold (prefix-0, prefix-1, …), and checks each is refused unknown-key
// without waiting for a fetch the loader will not start.
func floodUnknownKids(t *testing.T, v *JWTVerifier, k *testKeys, prefix string, n int) {
	t.Helper()
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			tok := rawSign(t, "ES256", k.p256b, fmt.Sprintf(`{"alg":"ES256","kid":"%s-%d"}`, prefix, i), payloadOf(t, nil))
			// Regression: issue 25 item 10. A deadline far above a local
			// fetch, far below the test's timeout: without the throttle, a
			// token inside the interval waits for a fetch the loader will
			// not start, and this says so at once.
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_, err := v.Verify(ctx, tok)
			if ctx.Err() != nil {
				t.Errorf("Verify of an unknown kid waited until its deadline: the unknown-kid refetch throttle let it wait for a fetch that never came")
				return
			}
			if r := reasonOf(t, err); r != ReasonUnknownKey {
				t.Errorf("reason %s", r)
			}
		})
	}
	wg.Wait()
}

// Regression: issue 25 item 10.
// The loader's own throttle: a burst of wake-ups from tokens inside the
// retry interval fetches nothing; the first wake-up after it fetches once.
func TestKeysWakeUpsInsideTheRetryIntervalFetchNothing(t *testing.T) {
	k := keys(t)
	clock := newStepClock()
	srv := newJWKSServer(t, jwksJSON(t, jwkJSON(t, &k.p256.PublicKey, "p256", "")))
	v := remoteVerifier(t, srv.URL, clock, RetryInterval(time.Minute))
	waitKeys(t, v)
	m := v.keys.(*keyManager)
	initial := srv.requests.Load()

	for range 100 {
		m.wake <- struct{}{} // what refresh sends; the loader takes each in turn
	}
	// Past the interval, one more wake-up fetches a set with a new key: once
	// it is in, every wake-up before it has been taken, in order.
	srv.setBody(jwksJSON(t, jwkJSON(t, &k.p256.PublicKey, "p256", ""), jwkJSON(t, k.ed.Public(), "ed", "")))
	clock.Advance(time.Minute)
	m.wake <- struct{}{}
	waitFor(t, func() bool { return len(v.set.Load().byID["ed"]) == 1 })
	if got := srv.requests.Load() - initial; got != 1 {
		t.Fatalf("%d fetches: %d wake-ups inside the retry interval fetched", got, got-1)
	}
}

func TestKeysConcurrentUnknownKidsShareTheRunningFetch(t *testing.T) {
	k := keys(t)
	clock := newStepClock()
	srv := newJWKSServer(t, jwksJSON(t, jwkJSON(t, &k.p256.PublicKey, "p256", "")))
	v := remoteVerifier(t, srv.URL, clock, RetryInterval(time.Minute))
	waitKeys(t, v)
	initial := srv.requests.Load()
	srv.setBody(jwksJSON(t, jwkJSON(t, &k.p256.PublicKey, "p256", ""), jwkJSON(t, k.ed.Public(), "ed", "")))
	srv.gate = make(chan struct{})
	clock.Advance(time.Minute)

	tok := joseSign(t, jose.EdDSA, k.ed, "ed", validClaims())
	var wg sync.WaitGroup
	errs := make(chan error, 20)
	for range 20 {
		wg.Go(func() {
			_, err := v.Verify(context.Background(), tok)
			errs <- err
		})
	}
	// Exactly one request reaches the server while all 20 wait.
	deadline := time.Now().Add(10 * time.Second)
	for srv.requests.Load() == initial {
		if time.Now().After(deadline) {
			t.Fatal("no fetch started")
		}
		time.Sleep(time.Millisecond)
	}
	srv.gate <- struct{}{}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("waiting token: %v", err)
		}
	}
	if got := srv.requests.Load() - initial; got != 1 {
		t.Fatalf("%d fetches, want 1", got)
	}
}

func TestKeysWaitIsBoundedByTheRequestContext(t *testing.T) {
	k := keys(t)
	clock := newStepClock()
	srv := newJWKSServer(t, jwksJSON(t, jwkJSON(t, &k.p256.PublicKey, "p256", "")))
	v := remoteVerifier(t, srv.URL, clock, RetryInterval(time.Minute))
	waitKeys(t, v)
	srv.gate = make(chan struct{})
	t.Cleanup(func() { close(srv.gate) })
	clock.Advance(time.Minute)

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := v.Verify(ctx, joseSign(t, jose.ES256, k.p256, "unknown", validClaims()))
		done <- err
	}()
	deadline := time.Now().Add(10 * time.Second)
	for srv.requests.Load() < 2 {
		if time.Now().After(deadline) {
			t.Fatal("no refresh started")
		}
		time.Sleep(time.Millisecond)
	}
	cancel()
	if r := reasonOf(t, <-done); r != ReasonUnknownKey {
		t.Fatalf("reason %s", r)
	}
}

func TestKeysFailedRefreshKeepsKeysAndIsRemembered(t *testing.T) {
	k := keys(t)
	clock := newStepClock()
	srv := newJWKSServer(t, jwksJSON(t, jwkJSON(t, &k.p256.PublicKey, "p256", "")))
	v := remoteVerifier(t, srv.URL, clock, RetryInterval(time.Minute))
	waitKeys(t, v)
	initial := srv.requests.Load()
	srv.status.Store(http.StatusInternalServerError)
	clock.Advance(time.Minute)

	unknown := rawSign(t, "ES256", k.p256, `{"alg":"ES256","kid":"other"}`, payloadOf(t, nil))
	for range 3 {
		if r := reasonOf(t, func() error { _, err := v.Verify(context.Background(), unknown); return err }()); r != ReasonUnknownKey {
			t.Fatalf("reason %s", r)
		}
	}
	if got := srv.requests.Load() - initial; got != 1 {
		t.Fatalf("%d fetches after a failure, want 1 (the failure is remembered)", got)
	}
	if _, err := v.Verify(context.Background(), joseSign(t, jose.ES256, k.p256, "p256", validClaims())); err != nil {
		t.Fatalf("keys held before the failure were dropped: %v", err)
	}
}

func TestKeysSetWithoutUsableKeysKeepsThePreviousSet(t *testing.T) {
	k := keys(t)
	clock := newStepClock()
	srv := newJWKSServer(t, jwksJSON(t, jwkJSON(t, &k.p256.PublicKey, "p256", "")))
	v := remoteVerifier(t, srv.URL, clock, RetryInterval(time.Minute))
	waitKeys(t, v)
	for _, body := range []string{`{"keys":[]}`, `{"keys":[{"kty":"oct","k":"c2VjcmV0","kid":"x"}]}`, `not json`, `{"keys":[{"kty":"RSA","kid":"x","n":"AQAB","e":"AQAB"}]}`} {
		srv.setBody([]byte(body))
		clock.Advance(time.Minute)
		_, err := v.Verify(context.Background(), rawSign(t, "ES256", k.p256, `{"alg":"ES256","kid":"x"}`, payloadOf(t, nil)))
		if r := reasonOf(t, err); r != ReasonUnknownKey {
			t.Fatalf("%s: reason %s", body, r)
		}
		if _, err := v.Verify(context.Background(), joseSign(t, jose.ES256, k.p256, "p256", validClaims())); err != nil {
			t.Fatalf("%s: previous keys lost: %v", body, err)
		}
	}
	m := v.keys.(*keyManager)
	m.mu.Lock()
	lastErr := m.lastErr
	m.mu.Unlock()
	if lastErr == nil || !strings.Contains(lastErr.Error(), "not a JWK Set") && !strings.Contains(lastErr.Error(), "no usable signing key") {
		t.Fatalf("last error %v", lastErr)
	}
}

func TestKeysLeavingTheSetDropTheirCachedVerifications(t *testing.T) {
	k := keys(t)
	clock := newStepClock()
	srv := newJWKSServer(t, jwksJSON(t, jwkJSON(t, &k.p256.PublicKey, "a", ""), jwkJSON(t, &k.p384.PublicKey, "b", "")))
	v := remoteVerifier(t, srv.URL, clock, RetryInterval(time.Minute))
	waitKeys(t, v)
	tokA := joseSign(t, jose.ES256, k.p256, "a", validClaims())
	tokB := joseSign(t, jose.ES384, k.p384, "b", validClaims())
	pa, _ := v.Verify(context.Background(), tokA)
	pb, _ := v.Verify(context.Background(), tokB)
	if v.cache.len() != 2 {
		t.Fatalf("cache holds %d", v.cache.len())
	}

	// Key a is withdrawn (compromised); b stays. A refresh happens.
	srv.setBody(jwksJSON(t, jwkJSON(t, &k.p384.PublicKey, "b", ""), jwkJSON(t, k.ed.Public(), "c", "")))
	clock.Advance(time.Minute)
	if _, err := v.Verify(context.Background(), joseSign(t, jose.EdDSA, k.ed, "c", validClaims())); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Verify(context.Background(), tokA); reasonOf(t, err) != ReasonUnknownKey {
		t.Fatalf("token of the withdrawn key: %v", err)
	}
	pb2, err := v.Verify(context.Background(), tokB)
	if err != nil {
		t.Fatal(err)
	}
	if pb2.Claims != pb.Claims {
		t.Fatal("the kept key's verification was not served from the cache")
	}
	_ = pa
}

func TestKeysRefreshPeriodically(t *testing.T) {
	k := keys(t)
	srv := newJWKSServer(t, jwksJSON(t, jwkJSON(t, &k.p256.PublicKey, "p256", "")))
	remoteVerifier(t, srv.URL, nil, RetryInterval(time.Millisecond), RefreshInterval(2*time.Millisecond))
	deadline := time.Now().Add(10 * time.Second)
	for srv.requests.Load() < 3 {
		if time.Now().After(deadline) {
			t.Fatalf("only %d fetches", srv.requests.Load())
		}
		time.Sleep(time.Millisecond)
	}
}

func TestKeysNextRefreshHonoursMaxAgeWithinBounds(t *testing.T) {
	cfg := defaultConfig(testIssuer, testAudience)
	cfg.retryInterval, cfg.refreshInterval = time.Minute, time.Hour
	cases := []struct {
		maxAge time.Duration
		want   time.Duration
	}{
		{0, time.Hour},
		{10 * time.Minute, 10 * time.Minute},
		{time.Second, time.Minute},  // never below the retry interval
		{48 * time.Hour, time.Hour}, // never above the refresh interval
	}
	for _, c := range cases {
		m := newKeyManager(func(context.Context) ([]*heldKey, time.Duration, error) {
			kk, _ := newHeldKey(&keys(t).p256.PublicKey, "k", "")
			return []*heldKey{kk}, c.maxAge, nil
		}, &cfg, new(atomic.Pointer[keySet]))
		if got := m.attempt(context.Background()); got != c.want {
			t.Errorf("max-age %v: next refresh in %v, want %v", c.maxAge, got, c.want)
		}
	}
	if got := m2(t, &cfg); got != time.Minute {
		t.Errorf("after a failure: next attempt in %v, want the retry interval", got)
	}
}

func m2(t *testing.T, cfg *verifierConfig) time.Duration {
	m := newKeyManager(func(context.Context) ([]*heldKey, time.Duration, error) {
		return nil, 0, errors.New("down")
	}, cfg, new(atomic.Pointer[keySet]))
	return m.attempt(context.Background())
}

func TestMaxAgeParsing(t *testing.T) {
	cases := map[string]time.Duration{
		"":                              0,
		"max-age=300":                   5 * time.Minute,
		"public, max-age=60":            time.Minute,
		"MAX-AGE=60":                    time.Minute,
		"max-age=\"60\"":                time.Minute,
		"max-age=-1":                    0,
		"max-age=abc":                   0,
		"no-store, max-age=60":          0,
		"max-age=60, no-cache":          0,
		"max-age=99999999999999999":     24 * time.Hour,
		"max-age=999999999999999999999": 0,
		"max-age=9999999999":            24 * time.Hour,
		"s-maxage=10":                   0,
	}
	for cc, want := range cases {
		if got := maxAge(cc); got != want {
			t.Errorf("maxAge(%q) = %v, want %v", cc, got, want)
		}
	}
}

func TestKeysCloseStopsTheLoaderAndReleasesWaiters(t *testing.T) {
	k := keys(t)
	clock := newStepClock()
	srv := newJWKSServer(t, jwksJSON(t, jwkJSON(t, &k.p256.PublicKey, "p256", "")))
	v := JWKSURL(srv.URL, testIssuer, testAudience, Clock(fixedClock()), RetryInterval(time.Minute))
	v.keys.(*keyManager).now = clock.Now
	if err := v.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := v.Open(context.Background()); err == nil {
		t.Fatal("a second Open succeeded")
	}
	waitKeys(t, v)
	srv.gate = make(chan struct{})
	clock.Advance(time.Minute)
	done := make(chan error, 1)
	go func() {
		_, err := v.Verify(context.Background(), joseSign(t, jose.ES256, k.p256, "unknown", validClaims()))
		done <- err
	}()
	deadline := time.Now().Add(10 * time.Second)
	for srv.requests.Load() < 2 {
		if time.Now().After(deadline) {
			t.Fatal("no refresh started")
		}
		time.Sleep(time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := v.Close(ctx); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if r := reasonOf(t, <-done); r != ReasonUnknownKey {
		t.Fatalf("waiter: %s", r)
	}
	// Keys loaded before Close stay usable, and nothing is fetched any more.
	if _, err := v.Verify(context.Background(), joseSign(t, jose.ES256, k.p256, "p256", validClaims())); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Hour)
	n := srv.requests.Load()
	v.Verify(context.Background(), joseSign(t, jose.ES256, k.p256, "other", validClaims()))
	if srv.requests.Load() != n {
		t.Fatal("a closed verifier fetched keys")
	}
	if err := v.Close(ctx); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

func TestKeysLogLoadsAndFailuresWithoutSecrets(t *testing.T) {
	k := keys(t)
	core, logs := observer.New(zap.DebugLevel)
	clock := newStepClock()
	srv := newJWKSServer(t, jwksJSON(t, jwkJSON(t, &k.p256.PublicKey, "p256", "")))
	v := remoteVerifier(t, srv.URL, clock, RetryInterval(time.Minute), Logger(zap.New(core)))
	waitKeys(t, v)
	srv.status.Store(http.StatusBadGateway)
	clock.Advance(time.Minute)
	tok := joseSign(t, jose.ES256, k.p256, "rotated", validClaims())
	v.Verify(context.Background(), tok)

	loaded := logs.FilterMessage("signing keys loaded").All()
	if len(loaded) != 1 || loaded[0].ContextMap()["added_kids"] == nil {
		t.Fatalf("load records: %v", loaded)
	}
	failed := logs.FilterMessage("signing keys not loaded; retrying").All()
	if len(failed) != 1 || failed[0].Level != zap.WarnLevel || !strings.Contains(fmt.Sprint(failed[0].ContextMap()["error"]), "status 502") {
		t.Fatalf("failure records: %v", failed)
	}
	for _, e := range logs.All() {
		if strings.Contains(fmt.Sprint(e.ContextMap()), strings.Split(tok, ".")[2]) {
			t.Fatal("a token reached the log")
		}
	}
}
