package fxsvc

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/caarlos0/env/v11"

	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/dpop"
	"github.com/svckit/svc/modules/store"
	"github.com/svckit/svc/secret"
)

// dpopEnv is the DPoP policy (RFC 9449) the deployment may set.
type dpopEnv struct {
	// Policy is off (or unset), allowed or required.
	Policy string `env:"SVC_AUTHN_DPOP"`
	// Algorithms the proofs may be signed with, comma-separated.
	Algorithms string `env:"SVC_AUTHN_DPOP_ALGORITHMS"`
	// MaxAge is how old a proof may be (its iat).
	MaxAge time.Duration `env:"SVC_AUTHN_DPOP_MAX_AGE"`
	// NonceSecret, when set, makes every proof carry the server's nonce,
	// derived from it: the same on every replica.
	NonceSecret secret.String `env:"SVC_AUTHN_DPOP_NONCE_SECRET"`
}

// The DPoP settings' defaults beside the verifier's own.
const (
	dpopAhead     = 5 * time.Second // the client's clock may run this far ahead
	dpopNonceStep = 5 * time.Minute // a nonce lives one to two steps
)

// dpopFromEnv reads SVC_AUTHN_DPOP*: the authn.DPoP option they ask for,
// nil when SVC_AUTHN_DPOP is unset or off (the other variables then set
// nothing and are refused, so that a nonce secret is never believed to be
// in force). replay, when not nil (fxredis.Redis provides it), holds the
// proofs' jti for every replica; every bad value is reported at once,
// naming its variable.
func dpopFromEnv(replay store.Replay) (authn.Option, error) {
	var e dpopEnv
	if err := env.Parse(&e); err != nil {
		return nil, fmt.Errorf("fxsvc.Authn: %w", envSettingError(err, reflect.TypeFor[dpopEnv]()))
	}
	var required bool
	switch strings.ToLower(strings.TrimSpace(e.Policy)) {
	case "", "off":
		if e.Algorithms != "" || e.MaxAge != 0 || e.NonceSecret != "" {
			return nil, errors.New("fxsvc.Authn: SVC_AUTHN_DPOP_ALGORITHMS, SVC_AUTHN_DPOP_MAX_AGE or SVC_AUTHN_DPOP_NONCE_SECRET is set while SVC_AUTHN_DPOP is off: set SVC_AUTHN_DPOP=allowed or required, or unset them")
		}
		return nil, nil
	case "allowed":
	case "required":
		required = true
	default:
		return nil, fmt.Errorf("fxsvc.Authn: SVC_AUTHN_DPOP=%q: write off, allowed (DPoP or Bearer) or required (DPoP only)", e.Policy)
	}
	var opts []dpop.Option
	var errs []error
	if e.Algorithms != "" {
		var names []string
		for _, n := range strings.Split(e.Algorithms, ",") {
			if n = strings.TrimSpace(n); n != "" {
				names = append(names, n)
			}
		}
		if _, err := dpop.New(dpop.Algorithms(names...)); err != nil {
			errs = append(errs, fmt.Errorf("fxsvc.Authn: SVC_AUTHN_DPOP_ALGORITHMS=%q: %w", e.Algorithms, err))
		}
		opts = append(opts, dpop.Algorithms(names...))
	}
	if e.MaxAge != 0 {
		if e.MaxAge < time.Second {
			errs = append(errs, fmt.Errorf("fxsvc.Authn: SVC_AUTHN_DPOP_MAX_AGE=%s: a proof must live at least 1s (60s is usual)", e.MaxAge))
		}
		opts = append(opts, dpop.Window(e.MaxAge, dpopAhead))
	}
	if e.NonceSecret != "" {
		n, err := dpop.NewNonceSource([]byte(e.NonceSecret.Value()), dpopNonceStep)
		if err != nil {
			// The error names the rule, never the secret.
			errs = append(errs, fmt.Errorf("fxsvc.Authn: SVC_AUTHN_DPOP_NONCE_SECRET: %w", err))
		}
		opts = append(opts, dpop.RequireNonce(n))
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if replay != nil {
		opts = append(opts, dpop.Store(replay))
	}
	v, err := dpop.New(opts...)
	if err != nil {
		return nil, fmt.Errorf("fxsvc.Authn: SVC_AUTHN_DPOP*: %w", err)
	}
	return authn.DPoP(v, required), nil
}
