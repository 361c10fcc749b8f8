package fxsvc

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/caarlos0/env/v11"
	"go.uber.org/fx"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/svckit/svc/lifecycle"
	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/bearer"
	"github.com/svckit/svc/modules/store"
	"github.com/svckit/svc/secret"
)

// Authn authenticates every request and websocket handshake the app's
// router serves ([Serve]), unless its path is excluded or its route is
// anonymous. The verifier opens with the app (a JWT verifier loads its keys
// in the background) and closes with it. At build time the gate reads the
// router's routes and refuses bad set-ups with an error naming the route.
// It provides the *authn.Gate, and tells `check` how each route is guarded.
//
// A nil verifier is built from the deployment's trust settings,
// SVC_AUTHN_ISSUER and SVC_AUTHN_AUDIENCE, with
// bearer.Discover and the options given by [AuthnVerifierOptions]; nothing
// else inbound is read from the environment. The app fails to build,
// naming the variable, when the issuer is unset or not an https URL (http
// only on a loopback host) or the audience is empty or blank.
// SVC_AUTHN_PROFILE names the issuer's provider profile (keycloak, entra,
// cognito, auth0, okta, generic:PATHS; see bearer.ParseProfile), and an
// SVC_AUTHN_ISSUERS entry its own with profile=NAME; a bearer.Profile
// among AuthnVerifierOptions wins. `check` and the start line show each
// issuer's mapping.
//
// The verifier logs to the app's *zap.Logger ([DefaultLogger] when the app
// provides none): key-loading failures at most once per kind per minute
// with their cause, and the first success after failures once. A
// *bearer.JWTVerifier the app passes gets that logger too unless it was
// built with bearer.Logger.
//
// When the graph provides a store.Bans or a store.Flood (fxredis.Redis
// does), the gate's authn.Bans and authn.Flood keep their state there,
// shared by the app's replicas, unless they were built with a store of
// their own (bans.Store, flood.Store). Neither store turns bans or flood
// limits on: authn.Bans and authn.Flood still do. Likewise a
// store.Introspections (fxredis.Redis provides one) shares the
// introspection answers of a verifier built with bearer.Introspect, unless
// it was given bearer.Store (see there for how every shared entry is
// authenticated).
//
// SVC_AUTHN_DPOP (off, allowed or required) makes the gate take DPoP
// proofs (authn.DPoP), with SVC_AUTHN_DPOP_ALGORITHMS,
// SVC_AUTHN_DPOP_MAX_AGE and SVC_AUTHN_DPOP_NONCE_SECRET, whatever the
// verifier; the proofs' jti are remembered in the store.Replay the
// graph provides (fxredis.Redis does, shared by the replicas), else in
// this process's memory. An authn.DPoP among opts wins over them.
func Authn(v bearer.Verifier, opts ...authn.Option) fx.Option {
	return withKit(fx.Module("svc.authn",
		KnownVariables(knownEnvOf(&authnEnv{}, "")...),
		KnownVariables(knownEnvOf(&dpopEnv{}, "")...),
		fx.Supply(fx.Private, authnSpec{verifier: v, opts: opts}),
		checkSettings(func() error {
			_, err := dpopFromEnv(nil)
			return err
		}),
		checkSettingsFor(func(env settingsEnv) error {
			if v == nil {
				// Discover opens nothing: the verifier built only to
				// check is dropped.
				_, err := envVerifier(env.check, nil, zap.NewNop())
				return err
			}
			// A verifier refusing its settings fails at open otherwise,
			// after the rest was built.
			if err := bearer.SettingsError(v); err != nil {
				return fmt.Errorf("fxsvc.Authn: %w", err)
			}
			return nil
		}),
		fx.Provide(onlyOneAuthnGatePerApp),
		describe("authn", encodeVerifier),
		fx.Provide(fx.Annotate(func(g *authn.Gate) routeGuard { return g })),
		fx.Provide(fx.Annotate(func(g *authn.Gate) routeLister { return gateRoutes{g} }, fx.ResultTags(`group:"svc.routes"`))),
		fx.Provide(trustedIssuersOf),
		fx.Invoke(func(lc fx.Lifecycle, g *authn.Gate) {
			if c, ok := g.Verifier().(verifierLifecycle); ok {
				lifecycle.Register(lc, namedVerifier{c})
			}
		}),
	))
}

// verifierLifecycle is a verifier that holds resources for the life of
// the app (an *bearer.JWTVerifier loads keys in the background).
type verifierLifecycle interface {
	Open(ctx context.Context) error
	Close(ctx context.Context) error
}

// namedVerifier names the verifier in open and close errors: by its own
// Name when it has one (bearer.Issuers' "authn/issuers"), else
// "authn/verifier".
type namedVerifier struct{ verifierLifecycle }

func (n namedVerifier) Name() string {
	if named, ok := n.verifierLifecycle.(interface{ Name() string }); ok {
		return named.Name()
	}
	return "authn/verifier"
}

type authnSpec struct {
	verifier bearer.Verifier
	opts     []authn.Option
}

type authnIn struct {
	fx.In
	Spec         authnSpec
	VerifierOpts []*authnVerifierOpts `group:"svc.authn.verifier_opts"`
	Log          logIn
	Check        checkOnly    `optional:"true"`
	BanStore     store.Bans   `optional:"true"`
	FloodStore   store.Flood  `optional:"true"`
	DPoPReplay   store.Replay `optional:"true"`
	// IntrospectionStore is where the verifier shares introspection
	// answers (fxredis.Redis provides it).
	IntrospectionStore store.Introspections `optional:"true"`
	Proxies            []proxiesOption      `group:"svc.http.trusted_proxies"`
}

type authnVerifierOpts struct{ opts []bearer.VerifierOption }

// AuthnVerifierOptions passes verifier options (bearer.TokenTypes,
// bearer.Leeway, bearer.Algorithms, …) to the verifier that Authn(nil, …)
// builds from the environment:
//
//	fxsvc.Authn(nil, authn.Exclude("/healthz")),
//	fxsvc.AuthnVerifierOptions(bearer.TokenTypes("at+jwt")),
//
// An invalid option fails the app's build naming it. It refuses to be
// used with a verifier the app builds itself (pass the options to
// bearer.Discover there) and to be given twice (the order between two
// calls would decide which of two conflicting options wins).
func AuthnVerifierOptions(opts ...bearer.VerifierOption) fx.Option {
	return fx.Supply(fx.Annotated{Group: "svc.authn.verifier_opts", Target: &authnVerifierOpts{opts: opts}})
}

// authnEnv is the inbound trust the deployment may set.
type authnEnv struct {
	Issuer   string `env:"SVC_AUTHN_ISSUER"`
	Audience string `env:"SVC_AUTHN_AUDIENCE"`
	// Issuers trusts several issuers: comma-separated entries, each
	// "ISSUER AUDIENCE", or "ISSUER" alone for SVC_AUTHN_AUDIENCE, and
	// optionally "profile=NAME".
	Issuers string `env:"SVC_AUTHN_ISSUERS"`
	// Profile is the provider profile (bearer.ParseProfile) of
	// SVC_AUTHN_ISSUER, and of the SVC_AUTHN_ISSUERS entries naming none.
	Profile string `env:"SVC_AUTHN_PROFILE"`
}

// authnFromEnv reads SVC_AUTHN_ISSUER, SVC_AUTHN_AUDIENCE and
// SVC_AUTHN_ISSUERS. ok is false when no issuer is set.
func authnFromEnv() (authnEnv, bool, error) {
	var e authnEnv
	if err := env.Parse(&e); err != nil {
		return e, false, fmt.Errorf("reading SVC_AUTHN_ISSUER/SVC_AUTHN_AUDIENCE/SVC_AUTHN_ISSUERS/SVC_AUTHN_PROFILE: %w", err)
	}
	return e, e.Issuer != "" || strings.TrimSpace(e.Issuers) != "", nil
}

// onlyOneAuthnGatePerApp builds the gate. Its name is what fx reports when
// an app registers two.
func onlyOneAuthnGatePerApp(in authnIn) (*authn.Gate, error) {
	log, err := in.Log.get()
	if err != nil {
		return nil, err
	}
	var vo *authnVerifierOpts
	switch len(in.VerifierOpts) {
	case 0:
	case 1:
		vo = in.VerifierOpts[0]
	default:
		return nil, fmt.Errorf("fxsvc.AuthnVerifierOptions is given %d times: give all the verifier options in one call", len(in.VerifierOpts))
	}
	v := in.Spec.verifier
	if v == nil {
		if v, err = envVerifier(in.Check, vo, log); err != nil {
			return nil, err
		}
	} else if vo != nil {
		return nil, errors.New("fxsvc.AuthnVerifierOptions: the app passes its own verifier to fxsvc.Authn; give these options to bearer.Discover (or JWKSURL, KeySet) instead")
	}
	opts := in.Spec.opts
	dpopOpt, err := dpopFromEnv(in.DPoPReplay)
	if err != nil {
		return nil, err
	}
	if dpopOpt != nil {
		// First, so that the app's own authn.DPoP wins.
		opts = append([]authn.Option{dpopOpt}, opts...)
	}
	if in.BanStore != nil || in.FloodStore != nil || in.IntrospectionStore != nil {
		opts = append(opts[:len(opts):len(opts)], authn.SharedStores(in.BanStore, in.FloodStore, in.IntrospectionStore))
	}
	g, err := authn.New(v, opts...)
	if err != nil {
		return nil, fmt.Errorf("fxsvc.Authn: %w", err)
	}
	proxies, err := loadTrustedProxies(proxiesIn{Options: in.Proxies})
	if err != nil {
		return nil, err
	}
	if g.BansCallers() && !proxies.declared {
		return nil, errors.New("fxsvc.Authn: authn.Bans needs the app's proxies declared, so that the address banned is the caller's and not a proxy's: set " + trustedProxiesVar + " to their networks (set but empty when callers connect directly) or add fxsvc.TrustedProxies(...)")
	}
	// The gate's *bearer.JWTVerifier gets the app's logger too, unless it
	// was built with one (bearer.Logger).
	g.SetLogger(log)
	return g, nil
}

// verifierFromEnv builds the Discover verifier of SVC_AUTHN_ISSUER and
// SVC_AUTHN_AUDIENCE, or the bearer.Issuers of SVC_AUTHN_ISSUERS, refusing
// settings it could never work with in the variables' names rather than
// the verifier's.
func verifierFromEnv(vo *authnVerifierOpts, log *zap.Logger) (bearer.Verifier, error) {
	e, ok, err := authnFromEnv()
	if err != nil {
		return nil, fmt.Errorf("fxsvc.Authn: %w", err)
	}
	if !ok {
		return nil, errors.New("fxsvc.Authn: no verifier given and SVC_AUTHN_ISSUER is unset: pass bearer.New(issuer, audience) or set SVC_AUTHN_ISSUER and SVC_AUTHN_AUDIENCE (or SVC_AUTHN_ISSUERS)")
	}
	opts := []bearer.VerifierOption{bearer.Logger(log)}
	if vo != nil {
		// Later options win: an bearer.Logger given here replaces the app's.
		opts = append(opts, vo.opts...)
	}
	if strings.TrimSpace(e.Issuers) != "" {
		return issuersFromEnv(e, opts)
	}
	profile, err := envProfile(e)
	if err != nil {
		return nil, err
	}
	v := bearer.New(e.Issuer, e.Audience, withProfile(profile, opts)...)
	if err := bearer.SettingsError(v); err != nil {
		return nil, authnSettingError(err, e)
	}
	return v, nil
}

// issuersFromEnv builds the bearer.Issuers of SVC_AUTHN_ISSUERS: one
// Discover verifier per entry, each with its own audience.
func issuersFromEnv(e authnEnv, opts []bearer.VerifierOption) (bearer.Verifier, error) {
	if e.Issuer != "" {
		return nil, errors.New("fxsvc.Authn: SVC_AUTHN_ISSUER and SVC_AUTHN_ISSUERS are both set: set one (SVC_AUTHN_ISSUERS lists every issuer trusted)")
	}
	var vs []*bearer.JWTVerifier
	var errs []error
	def, err := envProfile(e)
	if err != nil {
		return nil, err
	}
	for i, entry := range strings.Split(e.Issuers, ",") {
		fields, profile, err := entryProfile(i+1, strings.Fields(entry), def)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		one := authnEnv{Audience: e.Audience}
		switch len(fields) {
		case 1:
			one.Issuer = fields[0]
		case 2:
			one.Issuer, one.Audience = fields[0], fields[1]
		default:
			errs = append(errs, fmt.Errorf("fxsvc.Authn: SVC_AUTHN_ISSUERS entry %d has %d words: write each entry as \"ISSUER AUDIENCE\" (or \"ISSUER\" for SVC_AUTHN_AUDIENCE), optionally followed by profile=NAME, entries separated by commas", i+1, len(fields)))
			continue
		}
		v := bearer.New(one.Issuer, one.Audience, withProfile(profile, opts)...)
		if err := bearer.SettingsError(v); err != nil {
			errs = append(errs, fmt.Errorf("fxsvc.Authn: SVC_AUTHN_ISSUERS entry %d (issuer %q, audience %q): %w",
				i+1, secret.URL(one.Issuer), secret.URL(one.Audience), err))
			continue
		}
		vs = append(vs, v)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	set := bearer.Issuers(vs...)
	if err := bearer.SettingsError(set); err != nil {
		return nil, fmt.Errorf("fxsvc.Authn: SVC_AUTHN_ISSUERS: %w", err)
	}
	return set, nil
}

// authnSettingError names the environment variable behind each setting the
// verifier refused; the rest came from AuthnVerifierOptions.
func authnSettingError(err error, e authnEnv) error {
	var errs []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	} else {
		errs = []error{err}
	}
	out := make([]error, 0, len(errs))
	for _, one := range errs {
		var ce *bearer.ConfigError
		switch {
		case errors.As(one, &ce) && ce.Setting == "issuer":
			out = append(out, fmt.Errorf("fxsvc.Authn: SVC_AUTHN_ISSUER=%q: %w", secret.URL(e.Issuer), one))
		case errors.As(one, &ce) && ce.Setting == "audience":
			out = append(out, fmt.Errorf("fxsvc.Authn: SVC_AUTHN_AUDIENCE=%q: %w", secret.URL(e.Audience), one))
		default:
			out = append(out, fmt.Errorf("fxsvc.AuthnVerifierOptions: %w", one))
		}
	}
	return errors.Join(out...)
}

var _ func(http.Handler) (http.Handler, error) = (*authn.Gate)(nil).Handler

// gateRoutes lists what the gate answers itself: the metadata document,
// never authenticated.
type gateRoutes struct{ g *authn.Gate }

func (r gateRoutes) Routes() []route {
	if p := r.g.MetadataPath(); p != "" {
		return []route{{Method: http.MethodGet, Pattern: p, Mode: "excluded"}}
	}
	return nil
}

// issuersShown are the issuers g's verifier trusts as the start line and
// `check` show them, through secret.URL (a password or query masked): an
// issuer template as written, followed by the tenants it stands for in
// parentheses. ok is false for a verifier that does not list its issuers.
func issuersShown(g *authn.Gate) (issuers []string, ok bool) {
	trusted, ok := g.TrustedIssuers()
	for _, t := range trusted {
		shown := secret.URL(t.Issuer).String()
		if t.Scope != "" {
			shown += " (" + t.Scope + ")"
		}
		if t.Profile != "" {
			shown += " [profile " + t.Profile + "]"
		}
		issuers = append(issuers, shown)
	}
	return issuers, ok
}

// encodeVerifier writes, for the start line, which verifier the gate uses
// and whom it trusts.
func encodeVerifier(g *authn.Gate, enc zapcore.ObjectEncoder) {
	v := g.Verifier()
	enc.AddString("verifier", fmt.Sprintf("%T", v))
	if issuers, ok := issuersShown(g); ok {
		_ = enc.AddArray("issuers", zapcore.ArrayMarshalerFunc(func(arr zapcore.ArrayEncoder) error {
			for _, iss := range issuers {
				arr.AppendString(iss)
			}
			return nil
		}))
	}
	if u := g.DiscoveryURL(); u != "" {
		enc.AddString("discovery_url", secret.URL(u).String())
	}
	if accepted, required := g.DPoP(); accepted {
		policy := "allowed"
		if required {
			policy = "required"
		}
		enc.AddString("dpop", policy)
	}
	if ep := bearer.IntrospectionEndpoint(v); ep != "" {
		enc.AddString("introspection_endpoint", secret.URL(ep).String())
	}
}
