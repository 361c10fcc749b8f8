package bearer

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"
)

// keySource loads the verifier's key set into the verifier's set (so the
// key step reads it without a call here) and refreshes it on demand.
type keySource interface {
	// refresh is asked for by a token naming a key not in seen. It returns
	// the set to try again: a newer one when a fetch brought one, seen when
	// no fetch is allowed yet. It waits for at most one fetch, bounded by ctx.
	refresh(ctx context.Context, seen *keySet) *keySet
	// unavailable is the error for Verify while current is nil.
	unavailable() error
	start() error
	stop(ctx context.Context) error
}

// staticKeys is the source of keys given in code: the verifier holds them
// from the start, and there is nothing to load.
type staticKeys struct{}

func (s *staticKeys) refresh(_ context.Context, seen *keySet) *keySet { return seen }
func (s *staticKeys) unavailable() error                              { return ErrKeysUnavailable }
func (s *staticKeys) start() error                                    { return nil }
func (s *staticKeys) stop(context.Context) error                      { return nil }

// fetchFunc loads a key set. maxAge is the response's Cache-Control
// max-age, 0 when it sent none.
type fetchFunc func(ctx context.Context) (set []*heldKey, maxAge time.Duration, err error)

// keyManager loads keys from the network on a goroutine it owns.
//
// Every fetch runs on that goroutine, one at a time. The periodic refresh
// and a failure being retried start at most one per retry interval; any
// number of tokens naming unknown keys start at most one per rotation
// cooldown (shorter, so a key rotation is not a long refusal window), or
// per retry interval after a failure, which is remembered that long. A
// token that names an unknown key waits for the next fetch when one may
// start, and shares it with every other token waiting.
type keyManager struct {
	fetch        fetchFunc
	retry        time.Duration
	cooldown     time.Duration // at most retry
	refreshEvery time.Duration
	timeout      time.Duration
	log          *zap.Logger
	// now paces fetches; the real clock except in tests, which step it to
	// open or close the retry window without sleeping.
	now func() time.Time

	set *atomic.Pointer[keySet] // the verifier's: nil until the first load

	mu          sync.Mutex
	lastAttempt time.Time     // start of the last fetch (monotonic)
	lastErr     error         // cause of the last failed fetch
	inFlight    bool          // a fetch is running
	attemptDone chan struct{} // closed when the next or running fetch ends
	running     bool
	cancel      context.CancelFunc
	exited      chan struct{} // closed when the goroutine returns

	wake chan struct{} // a token asks for a fetch

	failures loadLog // written by the loader's goroutine only
}

func newKeyManager(fetch fetchFunc, cfg *verifierConfig, set *atomic.Pointer[keySet]) *keyManager {
	return &keyManager{
		set:          set,
		fetch:        fetch,
		retry:        cfg.retryInterval,
		cooldown:     min(cfg.rotationCooldown, cfg.retryInterval),
		refreshEvery: cfg.refreshInterval,
		timeout:      cfg.fetchTimeout,
		log:          cfg.logger,
		now:          time.Now,
		attemptDone:  make(chan struct{}),
		wake:         make(chan struct{}, 1),
	}
}

func (m *keyManager) unavailable() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	switch {
	case !m.running && m.exited == nil:
		return fmt.Errorf("%w: the verifier was not opened (register it with the app's lifecycle)", ErrKeysUnavailable)
	case m.lastErr != nil:
		// Whoever gets this error may log it (a readiness probe does): its
		// URLs are redacted as in the loader's own log.
		return fmt.Errorf("%w: %w", ErrKeysUnavailable, &redactedError{msg: redactCause(m.lastErr), err: m.lastErr})
	default:
		return fmt.Errorf("%w: %w", ErrKeysUnavailable, errStillLoading)
	}
}

func (m *keyManager) start() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.running {
		return errors.New("authn: verifier already open")
	}
	ctx, cancel := context.WithCancel(context.Background())
	m.running, m.cancel, m.exited = true, cancel, make(chan struct{})
	go m.loop(ctx, m.exited)
	return nil
}

func (m *keyManager) stop(ctx context.Context) error {
	m.mu.Lock()
	if !m.running {
		m.mu.Unlock()
		return nil
	}
	m.running = false
	m.cancel()
	exited := m.exited
	m.mu.Unlock()
	select {
	case <-exited:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("authn: key loader did not stop: %w", ctx.Err())
	}
}

func (m *keyManager) refresh(ctx context.Context, seen *keySet) *keySet {
	m.mu.Lock()
	if cur := m.set.Load(); cur != seen {
		m.mu.Unlock()
		return cur
	}
	if !m.running || (!m.inFlight && m.tooSoonForUnknownKid()) {
		m.mu.Unlock()
		return seen
	}
	done, exited := m.attemptDone, m.exited
	if !m.inFlight {
		select {
		case m.wake <- struct{}{}:
		default:
		}
	}
	m.mu.Unlock()
	select {
	case <-done:
	case <-exited:
	case <-ctx.Done():
	}
	return m.set.Load()
}

// tooSoonForUnknownKid reports whether a token naming an unknown kid must
// do with the keys held: the last fetch started within the rotation
// cooldown, or within the retry interval when it failed. Called with mu
// held.
func (m *keyManager) tooSoonForUnknownKid() bool {
	wait := m.cooldown
	if m.lastErr != nil {
		wait = m.retry
	}
	return m.now().Sub(m.lastAttempt) < wait
}

func (m *keyManager) loop(ctx context.Context, exited chan struct{}) {
	defer close(exited)
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		case <-m.wake:
			m.mu.Lock()
			early := m.tooSoonForUnknownKid()
			m.mu.Unlock()
			if early {
				// A fetch already ran within the cooldown; the token
				// asking was served by it.
				continue
			}
		}
		next := m.attempt(ctx)
		if ctx.Err() != nil {
			return
		}
		timer.Stop()
		select {
		case <-timer.C:
		default:
		}
		timer.Reset(next)
	}
}

// attempt runs one fetch and returns the delay before the next periodic
// one.
func (m *keyManager) attempt(ctx context.Context) time.Duration {
	m.mu.Lock()
	m.inFlight, m.lastAttempt = true, m.now()
	m.mu.Unlock()

	fctx, cancel := context.WithTimeout(ctx, m.timeout)
	keys, maxAge, err := m.fetch(fctx)
	cancel()

	m.mu.Lock()
	defer m.mu.Unlock()
	m.inFlight = false
	// Waiters are released only once the outcome is in place (deferred
	// calls run in reverse: this before the unlock).
	defer func() {
		close(m.attemptDone)
		m.attemptDone = make(chan struct{})
	}()
	if err != nil {
		if ctx.Err() != nil {
			return 0
		}
		m.lastErr = err
		m.failures.failed(m.log, err, m.now(), m.retry, m.set.Load() != nil)
		return m.retry
	}
	m.lastErr = nil
	m.install(keys)
	m.failures.succeeded(m.log, m.now())
	next := m.refreshEvery
	if maxAge > 0 && maxAge < next {
		next = maxAge
	}
	return max(next, m.retry)
}

// install swaps in the new set. Keys unchanged since the last set keep
// their identity (and so their cached verifications); keys that left are
// retired, which drops what they verified from the cache.
func (m *keyManager) install(fresh []*heldKey) {
	old := m.set.Load()
	var added, removed []string
	if old != nil {
		for i, k := range fresh {
			if prev := findSame(old.keys, k); prev != nil {
				fresh[i] = prev
			} else {
				added = append(added, k.id)
			}
		}
		for _, k := range old.keys {
			if findSame(fresh, k) == nil {
				k.retired.Store(true)
				removed = append(removed, k.id)
			}
		}
	} else {
		for _, k := range fresh {
			added = append(added, k.id)
		}
	}
	m.set.Store(newKeySet(fresh, false))
	if len(added) > 0 || len(removed) > 0 {
		m.log.Info("signing keys loaded", zap.Strings("added_kids", added),
			zap.Strings("removed_kids", removed), zap.Int("keys", len(fresh)))
	}
}

func findSame(keys []*heldKey, k *heldKey) *heldKey {
	for _, o := range keys {
		if o == k || o.same(k) {
			return o
		}
	}
	return nil
}
