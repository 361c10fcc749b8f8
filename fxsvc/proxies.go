package fxsvc

import (
	"os"
	"strings"

	"go.uber.org/fx"

	"github.com/svckit/svc/internal/reqfacts"
)

// trustedProxiesVar lists the app's proxies in the environment.
const trustedProxiesVar = "SVC_HTTP_TRUSTED_PROXIES"

// proxiesGroup collects the [TrustedProxies] options of an app.
const proxiesGroup = "svc.http.trusted_proxies"

type proxiesOption struct{ cidrs []string }

// TrustedProxies lists the networks of the app's proxies (CIDRs such as
// "10.0.0.0/8" or "fd00::/8"; a bare address is that one host). From one
// of them, the caller is the address its X-Forwarded-For names (RFC 7239
// Forwarded when no X-Forwarded-For came), walked from the right through
// the proxies; from any other peer no forwarding header is believed. The
// address is worked out once per request, and everything that names the
// caller uses it: the access log, the spans, the gate's bans, flood limits
// and security records, and the rate limits.
//
// SVC_HTTP_TRUSTED_PROXIES (comma-separated) sets it without code; the
// option wins. Given more than once, the lists add up. An entry that is
// not a CIDR or an address, or that trusts every address (0.0.0.0/0),
// fails the app's build with a *SettingError naming the variable or the
// option.
//
// authn.Bans needs the proxies declared, so that the address banned is the
// caller's and not a proxy's: TrustedProxies() with no network (or
// SVC_HTTP_TRUSTED_PROXIES set, even to nothing) says callers connect
// directly.
func TrustedProxies(cidrs ...string) fx.Option {
	return fx.Options(
		fx.Supply(fx.Annotated{Group: proxiesGroup, Target: proxiesOption{cidrs: cidrs}}),
		checkSettings(func() error {
			_, err := parseProxies("fxsvc.TrustedProxies", cidrs)
			return err
		}),
	)
}

// trustedProxies is the app's one list of proxies, and whether the app
// declared it (an option or the variable) rather than left it unset.
type trustedProxies struct {
	cidrs    []string
	declared bool
}

type proxiesIn struct {
	fx.In
	Options []proxiesOption `group:"svc.http.trusted_proxies"`
}

// loadTrustedProxies reads the options, else SVC_HTTP_TRUSTED_PROXIES; a
// bad entry is a *SettingError naming where it came from.
func loadTrustedProxies(in proxiesIn) (trustedProxies, error) {
	if len(in.Options) > 0 {
		var all []string
		for _, o := range in.Options {
			all = append(all, o.cidrs...)
		}
		_, err := parseProxies("fxsvc.TrustedProxies", all)
		return trustedProxies{cidrs: all, declared: true}, err
	}
	return proxiesFromEnv()
}

func proxiesFromEnv() (trustedProxies, error) {
	v, ok := os.LookupEnv(trustedProxiesVar)
	if !ok {
		return trustedProxies{}, nil
	}
	cidrs := strings.Split(v, ",")
	_, err := parseProxies(trustedProxiesVar, cidrs)
	return trustedProxies{cidrs: cidrs, declared: true}, err
}

func parseProxies(setting string, cidrs []string) (reqfacts.Proxies, error) {
	p, err := reqfacts.ParseProxies(cidrs)
	if err != nil {
		return nil, &SettingError{Setting: setting, Problem: err.Error()}
	}
	return p, nil
}
