package fxsvc

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.uber.org/zap"
)

// shutdownDelay is SVC_HTTP_SHUTDOWN_DELAY: unlike the timeouts, zero (the
// default) is a valid value, meaning no delay.
type shutdownDelay time.Duration

func parseShutdownDelay(v string) (any, error) {
	v = strings.TrimSpace(v)
	if v == "0" {
		return shutdownDelay(0), nil
	}
	d, err := parsePositiveDuration(v)
	if err != nil {
		return nil, errors.New("want 0 or a positive Go duration such as 5s, or a number of seconds")
	}
	return shutdownDelay(d), nil
}

// ShutdownDelay sets how long the server keeps serving on stop with
// /readyz already failing, before the drain begins, overriding
// SVC_HTTP_SHUTDOWN_DELAY (default 0, no delay). A load balancer probing
// /readyz (see [Health]) or watching its endpoints then stops sending new
// requests before connections close. A negative d fails the app's build.
func ShutdownDelay(d time.Duration) ServeOption {
	return func(c *serveConfig) {
		if d < 0 {
			c.optErrs = append(c.optErrs, &SettingError{Setting: "fxsvc.ShutdownDelay", Problem: fmt.Sprintf("%v is negative: want 0 (no delay) or a positive duration", d)})
			return
		}
		c.ShutdownDelay = shutdownDelay(d)
	}
}

// stoppingKey carries the channel closed when the server starts stopping
// (before the shutdown delay) in every request's context, so that /readyz
// fails from then on.
type stoppingKey struct{}

// stoppingFrom reports whether the server serving ctx's request has
// started stopping.
func stoppingFrom(ctx context.Context) bool {
	ch, _ := ctx.Value(stoppingKey{}).(chan struct{})
	if ch == nil {
		return false
	}
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// leave is the first step of stop: readiness fails at once, then requests
// are still served for the shutdown delay (or until ctx, the stop budget,
// ends) so that load balancers stop sending before the drain closes
// connections.
func (s *Server) leave(ctx context.Context, log *zap.Logger) {
	s.leaveOnce.Do(func() { close(s.leaving) })
	if s.delay <= 0 {
		return
	}
	log.Info("svc: stopping: readiness fails; serving on for the shutdown delay before draining (SVC_HTTP_SHUTDOWN_DELAY)",
		zap.Duration("shutdown_delay", s.delay))
	if s.sleep != nil {
		s.sleep(ctx, s.delay)
		return
	}
	t := time.NewTimer(s.delay)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}
