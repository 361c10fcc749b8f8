package fxsvc

import (
	"context"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/fx"
	"go.uber.org/zap"

	"github.com/svckit/svc/internal/reqfacts"
	"github.com/svckit/svc/lifecycle"
	"github.com/svckit/svc/modules/authn"
	svcerrors "github.com/svckit/svc/modules/errors"
	"github.com/svckit/svc/modules/oauthclient"
)

// The paths [Health] answers.
const (
	livePath  = "/livez"
	readyPath = "/readyz"
)

// readinessTimeout bounds one /readyz probe: every check runs at once
// under a context that ends after it, and a check still running then fails
// the probe.
const readinessTimeout = 2 * time.Second

// readinessGroup is the fx value group [Health] gathers the app's own
// [ReadinessCheck] values from (see [Readiness]).
const readinessGroup = "svc.readiness"

// shutdownCheck is the name /readyz gives to a server that is stopping.
const shutdownCheck = "shutdown"

// startingCheck is the name /readyz gives to an app [Run] is still
// starting: the server listens from its own start hook, before the hooks
// of the components after it have run.
const startingCheck = "starting"

// startState tells /readyz whether [Run] has finished starting the app.
// Run supplies it; an app started otherwise has none and is not gated.
type startState struct {
	started atomic.Bool
	// announced is closed once Run has written its start line: readiness
	// is watched from then on, so that "ready" follows "started".
	announced chan struct{}
}

func newStartState() *startState { return &startState{announced: make(chan struct{})} }

// ReadinessCheck is one condition /readyz waits for.
type ReadinessCheck struct {
	// Name identifies the check in the 503 answer and in the log. It is
	// made of lowercase letters, digits, '.', '-' and '_', and is unique
	// in the app.
	Name string
	// Check returns nil when ready. It runs on every probe, so it should
	// be cheap, and must return when ctx ends (after 2 s).
	// Its error is logged, never sent.
	Check func(ctx context.Context) error
	// Degraded makes the check's failure leave the app ready: /readyz
	// still answers 200, its body naming the check after "degraded:",
	// for a dependency the app serves without (a part of its routes
	// fails, the rest works), which a restart or leaving the load
	// balancer would not bring back.
	Degraded bool
}

// Readiness adds a check to /readyz (see [Health]). constructor is an fx
// constructor: a function that takes the values of the graph the check
// needs and returns a [ReadinessCheck] (and, optionally, an error):
//
//	fxsvc.Readiness(func(db *sql.DB) fxsvc.ReadinessCheck {
//		return fxsvc.ReadinessCheck{Name: "db", Check: db.PingContext}
//	})
//
// It refuses anything else: fx.New fails naming fxsvc.Readiness.
func Readiness(constructor any) fx.Option {
	t := reflect.TypeOf(constructor)
	if t == nil || t.Kind() != reflect.Func || t.NumOut() == 0 || t.Out(0) != reflect.TypeFor[ReadinessCheck]() ||
		t.NumOut() > 2 || (t.NumOut() == 2 && t.Out(1) != reflect.TypeFor[error]()) {
		return fx.Error(fmt.Errorf("fxsvc.Readiness: got %v, want a function returning an fxsvc.ReadinessCheck (and optionally an error)", t))
	}
	return fx.Provide(fx.Annotate(constructor, fx.ResultTags(`group:"`+readinessGroup+`"`)))
}

type healthIn struct {
	fx.In
	Gate   *authn.Gate         `optional:"true"`
	Client *oauthclient.Client `optional:"true"`
	Checks []ReadinessCheck    `group:"svc.readiness"`
	Start  *startState         `optional:"true"`
	Log    logIn
	Life   fx.Lifecycle
}

// readyWatchFirst and readyWatchMax bound how often readiness is checked
// after start until the app is first ready, so that "svc: ready" is
// logged when it becomes so rather than at the first probe: from half a
// second, doubling, to every 5 s for an app that stays unready (its checks
// may cost a round trip).
const (
	readyWatchFirst = 500 * time.Millisecond
	readyWatchMax   = 5 * time.Second
)

// Health serves two probes in front of the app's router, outside the
// authentication gate (never authenticated, never reaching the router;
// `check` lists them as excluded):
//
//   - GET /livez answers 200 while the process serves HTTP, stopping or not.
//   - GET /readyz answers 200 once every readiness check passes: the
//     verifier of [Authn] holds signing keys (a verifier with a
//     Ready() error method, as *bearer.JWTVerifier has; others are not
//     checked), the client of [OAuthClient]
//     has discovered its authorization server, and every [ReadinessCheck]
//     the app adds ([Readiness]) returns nil. Otherwise, under [Run] or
//     [Main] until every start hook has run, and from the moment
//     the server starts stopping (see SVC_HTTP_SHUTDOWN_DELAY in [Serve]),
//     it answers 503 not-ready in the app's error format, its detail naming
//     the failing checks (their errors are logged, never sent). A
//     failing [ReadinessCheck.Degraded] check leaves it at 200, its body
//     naming the check after "degraded:".
//
// Both answer HEAD too, other methods 405, and carry Cache-Control:
// no-store. Changes of readiness are logged once each, with the failing
// checks' errors; after start the checks also run on their own until the
// app is first ready, so "svc: ready" is logged when it becomes ready. It refuses (the app fails to build) a check with an
// invalid or repeated name, and a second Health in one app.
func Health() fx.Option {
	return withKit(fx.Module("svc.health",
		lifecycle.Singleton("health", "fxsvc.Health"),
		fx.Provide(fx.Private, newHealth),
		fx.Provide(fx.Annotate(func(h *health) *health { return h }, fx.ResultTags(`group:"svc.http.health"`))),
		fx.Provide(fx.Annotate(func(h *health) routeLister { return h }, fx.ResultTags(`group:"svc.routes"`))),
	))
}

type health struct {
	checks []ReadinessCheck
	gated  bool
	start  *startState // nil when not started by Run
	log    *zap.Logger

	mu      sync.Mutex
	failing string // the failing checks of the last probe, to log changes once
}

// readyFunc is a readiness check that needs no context (the verifier's and
// the client's Ready never block).
type readyFunc interface{ Ready() error }

func newHealth(in healthIn) (*health, error) {
	// An impossible key, so that the first probe logs either way.
	log, err := in.Log.get()
	if err != nil {
		return nil, err
	}
	h := &health{gated: in.Gate != nil, start: in.Start, log: log, failing: "\x00"}
	var stop, done chan struct{}
	in.Life.Append(fx.Hook{
		OnStart: func(context.Context) error {
			stop, done = make(chan struct{}), make(chan struct{})
			go h.watch(stop, done)
			return nil
		},
		OnStop: func(context.Context) error {
			close(stop)
			<-done
			return nil
		},
	})
	if in.Gate != nil {
		if r, ok := in.Gate.Verifier().(readyFunc); ok {
			h.checks = append(h.checks, ReadinessCheck{Name: "authn", Check: ignoreCtx(r)})
		}
	}
	if in.Client != nil {
		h.checks = append(h.checks, ReadinessCheck{Name: "oauthclient", Check: ignoreCtx(in.Client)})
	}
	for _, c := range in.Checks {
		if err := validCheckName(c.Name); err != nil {
			return nil, err
		}
		if c.Check == nil {
			return nil, fmt.Errorf("fxsvc.Readiness: the check %q has no Check function", c.Name)
		}
		for _, o := range h.checks {
			if o.Name == c.Name {
				return nil, fmt.Errorf("fxsvc.Readiness: two readiness checks are named %q: give each its own name", c.Name)
			}
		}
		h.checks = append(h.checks, c)
	}
	return h, nil
}

func ignoreCtx(r readyFunc) func(context.Context) error {
	return func(context.Context) error { return r.Ready() }
}

// validCheckName keeps names fit for the detail of a 503 and a log field.
func validCheckName(name string) error {
	ok := name != "" && len(name) <= 64 && name != shutdownCheck && name != startingCheck
	for _, ch := range name {
		if !(ch >= 'a' && ch <= 'z' || ch >= '0' && ch <= '9' || ch == '.' || ch == '-' || ch == '_') {
			ok = false
		}
	}
	if !ok {
		return fmt.Errorf("fxsvc.Readiness: the check name %q is invalid: use 1 to 64 lowercase letters, digits, '.', '-' or '_' (and neither %q nor %q)", name, shutdownCheck, startingCheck)
	}
	return nil
}

// Routes lists the probes for `check`.
func (h *health) Routes() []route {
	mode := "unprotected"
	if h.gated {
		mode = "excluded"
	}
	return []route{
		{Method: http.MethodGet, Pattern: livePath, Mode: mode},
		{Method: http.MethodGet, Pattern: readyPath, Mode: mode},
	}
}

func (h *health) wrap(next http.Handler) (http.Handler, error) {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case livePath, readyPath:
		default:
			next.ServeHTTP(w, r)
			return
		}
		// The probe is its own route: the request telemetry names it,
		// where no gate or router ever sees it.
		if st := reqfacts.From(r.Context()); st != nil {
			st.SetRoute(r.URL.Path, true)
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			svcerrors.Respond(w, r, http.StatusMethodNotAllowed, "This probe answers GET and HEAD.", nil)
			return
		}
		if r.URL.Path == readyPath {
			failing, degraded := h.probe(r.Context())
			if len(failing) > 0 {
				res, _ := svcerrors.FromContext(r.Context())
				res.Render(&notReady{checks: failing}, r.URL.EscapedPath()).Write(w)
				return
			}
			if len(degraded) > 0 {
				w.Header().Set("Content-Type", "text/plain; charset=utf-8")
				w.Header().Set("Cache-Control", "no-store")
				_, _ = w.Write([]byte("ok\ndegraded: " + strings.Join(degraded, ", ") + "\n"))
				return
			}
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		_, _ = w.Write([]byte("ok\n"))
	}), nil
}

// probe runs every check at once and returns the names of those failing,
// in the checks' order: those that make the app unready, and the
// [ReadinessCheck.Degraded] ones. A stopping server fails before any
// check runs.
func (h *health) probe(ctx context.Context) (failing, degraded []string) {
	if stoppingFrom(ctx) {
		h.changed([]string{shutdownCheck}, nil, nil)
		return []string{shutdownCheck}, nil
	}
	if h.start != nil && !h.start.started.Load() {
		h.changed([]string{startingCheck}, nil, nil)
		return []string{startingCheck}, nil
	}
	ctx, cancel := context.WithTimeout(ctx, readinessTimeout)
	defer cancel()
	type result struct {
		i   int
		err error
	}
	// Buffered for every check: one that ignores ctx and returns late
	// still finds room, and no goroutine waits on the probe that left.
	results := make(chan result, len(h.checks))
	for i, c := range h.checks {
		go func() { results <- result{i, runCheck(ctx, c)} }()
	}
	errs := make([]error, len(h.checks))
	for i := range errs {
		errs[i] = context.DeadlineExceeded // still running when the bound ends
	}
	for range h.checks {
		var r result
		select {
		case r = <-results:
		case <-ctx.Done():
			// Still take what finished in time; the rest fail.
			select {
			case r = <-results:
			default:
				r.i = -1
			}
		}
		if r.i < 0 {
			break
		}
		errs[r.i] = r.err
	}
	var fields []zap.Field
	for i, err := range errs {
		if err == nil {
			continue
		}
		if h.checks[i].Degraded {
			degraded = append(degraded, h.checks[i].Name)
		} else {
			failing = append(failing, h.checks[i].Name)
		}
		fields = append(fields, zap.NamedError("error."+h.checks[i].Name, err))
	}
	h.changed(failing, degraded, fields)
	return failing, degraded
}

func runCheck(ctx context.Context, c ReadinessCheck) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("the check panicked: %v", p)
		}
	}()
	if err = c.Check(ctx); err == nil && ctx.Err() != nil {
		// A check that outlived the probe's bound is not ready either.
		err = ctx.Err()
	}
	return err
}

// watch checks readiness once the app has started (under [Run], once it
// has said so), and again (readyWatchFirst to readyWatchMax apart) until
// it is ready: the
// log says "svc: ready" when the app becomes ready, whether or not
// anything probes it. After that, probes log the changes.
func (h *health) watch(stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	if h.start != nil {
		select {
		case <-h.start.announced:
		case <-stop:
			return
		}
	}
	wait := readyWatchFirst
	t := time.NewTimer(wait)
	defer t.Stop()
	for {
		ctx, cancel := context.WithCancel(context.Background())
		failing, _ := h.probe(ctx)
		cancel()
		if len(failing) == 0 {
			return
		}
		t.Reset(wait)
		select {
		case <-t.C:
		case <-stop:
			return
		}
		wait = min(2*wait, readyWatchMax)
	}
}

// changed logs a change of readiness once: probes come every few seconds.
func (h *health) changed(failing, degraded []string, fields []zap.Field) {
	key := strings.Join(failing, ",") + "|" + strings.Join(degraded, ",")
	h.mu.Lock()
	same := key == h.failing
	h.failing = key
	h.mu.Unlock()
	if same {
		return
	}
	if len(failing) == 0 && len(degraded) > 0 {
		h.log.Info("svc: ready, degraded", append([]zap.Field{zap.Strings("checks", slices.Clone(degraded))}, fields...)...)
		return
	}
	if len(failing) == 0 {
		h.log.Info("svc: ready")
		return
	}
	h.log.Info("svc: not ready", append([]zap.Field{zap.Strings("checks", slices.Clone(failing))}, fields...)...)
}
