package fxsvc

import (
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/go-chi/chi/v5"
	"go.uber.org/fx"

	"github.com/svckit/svc/internal/reqfacts"
)

// route is one route of the app as `check` prints it.
type route struct {
	Method  string
	Pattern string
	// Mode is anonymous, authenticated or excluded when an authentication
	// gate is registered, and unprotected when none is.
	Mode   string
	Scopes []string
	// Notes are what the components behind the gate declare on the route
	// (rate limits, idempotency, conditional requests, caching).
	Notes []string
}

// routeNoter describes what one component does on a route, read from the
// route's markers; "" when nothing. Components behind the gate provide one
// to the value group "svc.route.notes" (see noteRoutes).
type routeNoter func(h http.Handler, middlewares []func(http.Handler) http.Handler) string

// noteRoutes adds a component's route notes to what `check` prints.
func noteRoutes(n routeNoter) fx.Option {
	return fx.Supply(fx.Annotated{Group: "svc.route.notes", Target: n})
}

// routeGuard tells how the app guards a route. The authentication module
// provides one; without it every route is unprotected.
type routeGuard interface {
	Guard(method, pattern string, h http.Handler, middlewares []func(http.Handler) http.Handler) (mode string, scopes []string)
}

// routeLister lists routes chi.Walk cannot reach: the metadata document the
// authentication gate answers itself, a ServeMux's patterns. Provide one to
// the value group "svc.routes".
type routeLister interface {
	Routes() []route
}

type checkIn struct {
	fx.In
	Router    *chi.Mux       `optional:"true"`
	ChiRouter chi.Router     `optional:"true"`
	Listers   []routeLister  `group:"svc.routes"`
	Guard     routeGuard     `optional:"true"`
	Noters    []routeNoter   `group:"svc.route.notes"`
	Issuers   trustedIssuers `optional:"true"`
}

// check is the `check` command of [Run]: it builds the app's graph without
// starting it and writes one line per route to stdout. It returns the exit status: 1 when the graph does not
// build (the error goes to stderr). Every invalid setting of the app's
// components is reported at once, each naming its variable or option. It
// needs no deployment setting: with SVC_AUTHN_ISSUER unset, Authn(nil, …)
// gets a stand-in verifier (nothing is verified by `check`), and with the
// outbound identity (SVC_OAUTHCLIENT_ISSUER or _TOKEN_ENDPOINT, _CLIENT_ID)
// unset, OAuthClient a stand-in client; a line on stderr names what was
// not resolved. A setting that is set is still checked.
func check(stdout, stderr io.Writer, opts ...fx.Option) int {
	var routes []route
	var issuers trustedIssuers
	// The stop budget is checked as Run checks it, from the parts the
	// settings give: check starts nothing, so builds no server to ask.
	budget, budgetErr := loadShutdownTimeout()
	if budgetErr != nil {
		budget = defaultShutdownTimeout
	}
	var found settingsFound
	var unresolved unresolvedSettings
	first := []fx.Option{fx.NopLogger, fx.StopTimeout(budget), fx.Supply(checkOnly{on: true, unresolved: &unresolved}),
		checkAllSettings(&found, logSettingsCheck, shutdownTimeoutCheck), supplyLogFallback(stderr)}
	app := fx.New(append(first, append(opts, fx.Invoke(func(in checkIn) error {
		var err error
		routes, err = collectRoutes(in)
		issuers = in.Issuers
		return err
	}))...)...)
	err := app.Err()
	if budgetErr == nil {
		if err == nil {
			err = found.stop.check(app.StopTimeout())
		} else {
			err = withStopBudget(err, found.stop, app.StopTimeout())
		}
	}
	printMisspelt(stderr, found.misspelt) // check's output is for a person
	if err != nil {
		fmt.Fprintf(stderr, "svc: %s\n", explain(err))
		return 1
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	for _, r := range routes {
		line := fmt.Sprintf("%s\t%s\t%s\t%s", r.Method, r.Pattern, r.Mode, strings.Join(r.Scopes, " "))
		if len(r.Notes) > 0 {
			line += "\t" + strings.Join(r.Notes, " ")
		}
		fmt.Fprintln(tw, line)
	}
	_ = tw.Flush()
	if issuers != "" {
		fmt.Fprintf(stderr, "svc: check: trusts issuers: %s\n", issuers)
	}
	if len(unresolved.names) > 0 {
		fmt.Fprintf(stderr, "svc: check: listed without these deployment settings (unset, so not resolved): %s\n", strings.Join(unresolved.names, ", "))
	}
	return 0
}

// walkChi calls visit for each route of the app's chi router (Huma on chi
// included), the *chi.Mux when the app provides both; with neither it
// visits nothing.
func walkChi(mux *chi.Mux, r chi.Router, visit func(method, pattern string, h http.Handler, mws []func(http.Handler) http.Handler)) error {
	var router chi.Routes = r
	if mux != nil {
		router = mux
	}
	if router == nil {
		return nil
	}
	return chi.Walk(router, func(method, pattern string, h http.Handler, mws ...func(http.Handler) http.Handler) error {
		visit(method, reqfacts.WalkedRoute(pattern), h, mws)
		return nil
	})
}

func collectRoutes(in checkIn) ([]route, error) {
	var routes []route
	err := walkChi(in.Router, in.ChiRouter, func(method, pattern string, h http.Handler, mws []func(http.Handler) http.Handler) {
		route := guarded(in.Guard, method, pattern, h, mws)
		route.Notes = noteRoute(in.Noters, h, mws)
		routes = append(routes, route)
	})
	if err != nil {
		return nil, fmt.Errorf("check: walking the chi router: %w", err)
	}
	for _, l := range in.Listers {
		for _, r := range l.Routes() {
			if r.Mode == "" {
				r = guarded(in.Guard, r.Method, r.Pattern, nil, nil)
			}
			routes = append(routes, r)
		}
	}
	sort.SliceStable(routes, func(i, j int) bool {
		if routes[i].Pattern != routes[j].Pattern {
			return routes[i].Pattern < routes[j].Pattern
		}
		return routes[i].Method < routes[j].Method
	})
	return routes, nil
}

// noteRoute is what the components say of a route, read from its markers.
func noteRoute(noters []routeNoter, h http.Handler, mws []func(http.Handler) http.Handler) []string {
	var notes []string
	for _, n := range noters {
		if note := n(h, mws); note != "" {
			notes = append(notes, note)
		}
	}
	// fx hands a value group over in no fixed order: sort, so that check
	// prints the same line every time.
	sort.Strings(notes)
	return notes
}

func guarded(g routeGuard, method, pattern string, h http.Handler, mws []func(http.Handler) http.Handler) route {
	r := route{Method: method, Pattern: pattern, Mode: "unprotected"}
	if g != nil {
		r.Mode, r.Scopes = g.Guard(method, pattern, h, mws)
	}
	return r
}
