package fxsvc

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"

	"go.uber.org/fx"
	"go.uber.org/zap/zapcore"

	"github.com/svckit/svc/internal/oauthenv"
	"github.com/svckit/svc/lifecycle"
	"github.com/svckit/svc/modules/oauthclient"
)

// OAuthClient adds the outbound token client to the app: built by
// oauthclient.New from opts over the environment (SVC_OAUTHCLIENT_*),
// opened when the app starts (discovery, when an issuer is set) and closed
// when it stops (fetches in flight are cancelled). It provides
// *oauthclient.Client to the graph, and logs failed fetches to the graph's
// *zap.Logger, or to [DefaultLogger] when the app has none (an
// oauthclient.Logger in opts wins).
//
// It refuses: a second OAuthClient in one app (fx.New fails naming both),
// and a missing or invalid setting (the app
// fails with an *oauthclient.ConfigError naming the variable or option).
// Discovery that finds no usable metadata fails start with an
// *oauthclient.DiscoveryError; an authorization server that is merely down
// does not.
func OAuthClient(opts ...oauthclient.Option) fx.Option {
	return withKit(fx.Module("svc.oauthclient",
		lifecycle.Singleton("oauthclient", "fxsvc.OAuthClient"),
		KnownVariables(knownEnvOf(&oauthenv.Client{}, oauthenv.ClientPrefix)...),
		fx.Supply(fx.Private, oauthClientOptions(opts)),
		checkSettingsFor(func(env settingsEnv) error {
			// New opens nothing (no goroutine, no connection): the client
			// built only to check is simply dropped. Closing it would close
			// the idle connections of an http.Client the options share.
			_, err := oauthclient.New(opts...)
			if err != nil && (env.forTests || env.check.on) {
				if _, err = unconfiguredClient(opts, err); err == nil && env.check.on {
					env.check.unresolved.note("SVC_OAUTHCLIENT_ISSUER (the outbound client)")
				}
			}
			return err
		}),
		fx.Provide(onlyOneOauthClientPerApp),
		describe("oauthclient", func(c *oauthclient.Client, enc zapcore.ObjectEncoder) { _ = c.MarshalLogObject(enc) }),
		// Build it even when no pattern asks for it yet, so discovery runs
		// and a bad setting fails start, not the first request.
		fx.Invoke(func(*oauthclient.Client) {}),
	))
}

type oauthClientOptions []oauthclient.Option

type oauthClientParams struct {
	fx.In
	Lifecycle fx.Lifecycle
	Options   oauthClientOptions
	Log       logIn
	ForTests  *forTests `optional:"true"`
	Check     checkOnly `optional:"true"`
}

// onlyOneOauthClientPerApp builds and registers the client. Its name is
// what fx reports when an app adds OAuthClient twice.
func onlyOneOauthClientPerApp(p oauthClientParams) (*oauthclient.Client, error) {
	log, err := p.Log.get()
	if err != nil {
		return nil, err
	}
	// First, so an oauthclient.Logger in opts still wins.
	all := append([]oauthclient.Option{oauthclient.Logger(log.Named("svc.oauthclient"))}, p.Options...)
	c, err := oauthclient.New(all...)
	if err != nil && (p.ForTests != nil || p.Check.on) {
		c, err = unconfiguredClient(all, err)
	}
	if err != nil {
		return nil, err
	}
	lifecycle.Register(p.Lifecycle, c)
	return c, nil
}

// ClientCredentials provides a *oauthclient.Pattern named name (fx tag
// `name:"<name>"`) that fetches tokens as the service itself, through the
// app's *oauthclient.Client (add OAuthClient) unless opts hold
// oauthclient.WithClient. Settings come from
// SVC_CLIENTCREDENTIALS_<NAME>_AUDIENCE, _RESOURCE, _SCOPES and opts.
//
// It refuses what oauthclient.ClientCredentials refuses (the app fails
// with an *oauthclient.ConfigError), including a pattern with no client:
// neither OAuthClient in the app nor oauthclient.WithClient in opts. A
// second pattern of the same name fails fx.New.
//
// With an oauthclient.Resilience whose Degraded is set among opts, and
// [Health] in the app, /readyz names the pattern (check
// oauthclient.<name>, lowercased) as degraded while one of its circuit
// breakers is open: the probe still answers 200.
func ClientCredentials(name string, opts ...oauthclient.PatternOption) fx.Option {
	return providePattern(name, false, oauthclient.ClientCredentials, opts)
}

// TokenExchange provides a *oauthclient.Pattern named name that exchanges
// the caller's token (RFC 8693) through the app's client; see
// ClientCredentials. Settings come from SVC_TOKENEXCHANGE_<NAME>_* and
// opts. In a handler, pass the caller's verified token explicitly:
//
//	tok, ok := authn.TokenFrom(r.Context()) // false on an anonymous request
//	resp, err := p.ClientFor(tok).Do(req)   // or p.TokenFor(r.Context(), tok)
//
// A token failure returned by the handler answers 503 or 502 in the app's
// error format (docs/errors.md, upstream-token-*).
func TokenExchange(name string, opts ...oauthclient.PatternOption) fx.Option {
	return providePattern(name, true, oauthclient.TokenExchange, opts)
}

// TokenExchangeOnBehalfOf is TokenExchange with the on-behalf-of grant.
func TokenExchangeOnBehalfOf(name string, opts ...oauthclient.PatternOption) fx.Option {
	return providePattern(name, true, oauthclient.TokenExchangeOnBehalfOf, opts)
}

type patternFunc func(string, ...oauthclient.PatternOption) (*oauthclient.Pattern, error)

func providePattern(name string, exchange bool, build patternFunc, opts []oauthclient.PatternOption) fx.Option {
	if !validPatternName(name) {
		// Checked here, before the name enters a struct tag.
		_, err := build(name)
		return fx.Error(err)
	}
	check := checkSettings(func() error {
		_, err := build(name, opts...)
		// Checked without the app's client, which the graph gives later:
		// the refusal for a missing one comes after every setting's, and
		// only the build can tell whether the app has one.
		var ce *oauthclient.ConfigError
		if errors.As(err, &ce) && ce.Setting == "oauthclient.WithClient" {
			return nil
		}
		return err
	})
	prefix := oauthenv.PatternPrefix(name, exchange)
	known := knownEnvOf(&oauthenv.Pattern{}, prefix)
	if exchange {
		known = append(known, knownEnvOf(&oauthenv.Exchange{}, prefix)...)
	}
	withClient := func(c *oauthclient.Client, more ...oauthclient.PatternOption) (*oauthclient.Pattern, error) {
		var all []oauthclient.PatternOption
		if c != nil {
			// The app's client first, so an explicit WithClient wins.
			all = append(all, oauthclient.WithClient(c))
		}
		// more before opts: an oauthclient.Actor in code wins over the
		// environment's.
		return build(name, append(append(all, more...), opts...)...)
	}
	named := fx.ResultTags(`name:"` + name + `"`)
	if !exchange {
		return fx.Options(check, degradedReadiness(name), KnownVariables(known...),
			fx.Provide(fx.Annotate(func(c *oauthclient.Client) (*oauthclient.Pattern, error) { return withClient(c) },
				fx.ParamTags(`optional:"true"`), named)),
			// A client-credentials pattern can be an exchange's actor
			// (SVC_TOKENEXCHANGE_<NAME>_ACTOR names it).
			fx.Provide(fx.Annotate(func(p *oauthclient.Pattern) *oauthclient.Pattern { return p },
				fx.ParamTags(`name:"`+name+`"`), fx.ResultTags(`group:"svc.oauthclient.actors"`))))
	}
	provide := func(c *oauthclient.Client, actors []*oauthclient.Pattern) (*oauthclient.Pattern, error) {
		actor, err := envActor(prefix, actors)
		if err != nil {
			return nil, err
		}
		if actor == nil {
			return withClient(c)
		}
		// As the variable, not as oauthclient.Actor: an actor in code
		// replaces it rather than being refused as a second one.
		return withClient(c, oauthclient.EnvActor(prefix+"ACTOR", actor))
	}
	return fx.Options(check, degradedReadiness(name), KnownVariables(known...),
		fx.Provide(fx.Annotate(provide, fx.ParamTags(`optional:"true"`, `group:"svc.oauthclient.actors"`), named)))
}

// envActor is the client-credentials pattern SVC_TOKENEXCHANGE_<NAME>_ACTOR
// names, nil when it is not set.
func envActor(prefix string, patterns []*oauthclient.Pattern) (*oauthclient.Pattern, error) {
	want := strings.TrimSpace(os.Getenv(prefix + "ACTOR"))
	if want == "" {
		return nil, nil
	}
	names := make([]string, 0, len(patterns))
	for _, p := range patterns {
		if p.Name() == want {
			return p, nil
		}
		names = append(names, p.Name())
	}
	sort.Strings(names)
	have := "none"
	if len(names) > 0 {
		have = strings.Join(names, ", ")
	}
	return nil, &oauthclient.ConfigError{Setting: prefix + "ACTOR",
		Problem: "names " + strconv.Quote(want) + ", which is not a client-credentials pattern of the app (fxsvc.ClientCredentials); the app has: " + have}
}

// degradedReadiness adds the degraded readiness check of a pattern built
// with a Resilience whose Degraded is set (in code, or by its
// SVC_..._RESILIENCE=degraded); a pattern without adds no check. Which it
// is, is known once the pattern is built, hence the flattened group.
func degradedReadiness(name string) fx.Option {
	return fx.Provide(fx.Annotate(
		func(p *oauthclient.Pattern) []ReadinessCheck {
			if !p.BreakersDegradeReadiness() {
				return nil
			}
			return []ReadinessCheck{{Name: "oauthclient." + strings.ToLower(name), Degraded: true, Check: func(context.Context) error {
				if hosts := p.OpenBreakers(); len(hosts) > 0 {
					return fmt.Errorf("the circuit breaker is open for %s", strings.Join(hosts, ", "))
				}
				return nil
			}}}
		},
		fx.ParamTags(`name:"`+name+`"`),
		fx.ResultTags(`group:"`+readinessGroup+`,flatten"`),
	))
}

// validPatternName mirrors the oauthclient rule: nothing that could break
// out of the fx tag.
func validPatternName(name string) bool {
	if name == "" || len(name) > 64 {
		return false
	}
	for _, ch := range name {
		if !(ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || ch == '.' || ch == '-' || ch == '_') {
			return false
		}
	}
	return true
}
