package oauthclient

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// errNotDiscovered is what [Client.Ready] reports while the authorization
// server's metadata is not known and no failure is remembered.
var errNotDiscovered = errors.New("oauthclient: the authorization server's metadata is not discovered yet (SVC_OAUTHCLIENT_ISSUER)")

// Ready reports whether the client can fetch tokens without discovering
// its authorization server first: nil once the server's metadata is known
// (at once when a token endpoint is configured), [ErrClosed] once closed,
// and otherwise [errNotDiscovered] or the remembered discovery failure.
// Readiness probes poll it.
//
// It never blocks. While not ready, it starts one discovery on a goroutine
// the client owns (stopped by Close), no more often than the failure memory
// allows (once per retry interval): a client whose server was down at start
// then becomes ready on probes alone, with no token request to trigger the
// retry. The error holds no secret.
func (c *Client) Ready() error {
	if c.meta.Load() != nil {
		return nil
	}
	if c.closedFlag.Load() {
		return ErrClosed
	}
	if err := c.memory.check("", c.clock.Now(), time.Time{}); err != nil {
		return fmt.Errorf("%w: %w", errNotDiscovered, err)
	}
	// A discovery already running holds the lock: do not queue another
	// behind it on every probe.
	if c.discoMu.TryLock() {
		c.discoMu.Unlock()
		if !c.goOwned(func(ctx context.Context) { _, _ = c.metadata(ctx, time.Time{}) }) {
			return ErrClosed
		}
	}
	return errNotDiscovered
}
