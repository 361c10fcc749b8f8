package fxsvc

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/caarlos0/env/v11"
)

// Defaults of the server settings of [Serve]. Each bounds what one client
// can hold: a connection that sends nothing, a request that arrives slowly,
// a response read slowly, a header that never ends.
const (
	// defaultReadHeaderTimeout bounds the wait for a request's header once
	// its first byte arrived (SVC_HTTP_READ_HEADER_TIMEOUT).
	defaultReadHeaderTimeout = 10 * time.Second
	// defaultReadTimeout bounds reading a whole request, body included
	// (SVC_HTTP_READ_TIMEOUT): a body trickled slower is cut off.
	defaultReadTimeout = 30 * time.Second
	// defaultWriteTimeout bounds a request from the end of its header to the
	// end of its response (SVC_HTTP_WRITE_TIMEOUT). A hijacked connection (a
	// websocket) is not bound by it, nor by the read timeout: net/http
	// clears both deadlines on Hijack. A handler streaming for longer
	// extends its own with http.ResponseController.SetWriteDeadline.
	defaultWriteTimeout = 60 * time.Second
	// defaultIdleTimeout bounds how long a keep-alive connection waits for
	// its next request (SVC_HTTP_IDLE_TIMEOUT).
	defaultIdleTimeout = 60 * time.Second
	// defaultMaxHeaderBytes bounds a request's header, request line included
	// (SVC_HTTP_MAX_HEADER_BYTES); larger ones get 431. It fits a bearer
	// token many times over.
	defaultMaxHeaderBytes = 64 << 10
)

// defaultDrainTimeout bounds how long [Serve] waits, on stop, for in-flight
// requests and for handlers of hijacked connections (SVC_HTTP_DRAIN_TIMEOUT).
// With the metrics flush (5 s by default) it fits fx's default 15 s stop
// budget with 2 s to spare for the other components' stop hooks.
const defaultDrainTimeout = 8 * time.Second

// serveConfig is what [Serve] reads from the environment, then overrides
// with its options.
type serveConfig struct {
	Addr              string        `env:"SVC_HTTP_ADDR"`
	ReadHeaderTimeout time.Duration `env:"SVC_HTTP_READ_HEADER_TIMEOUT"`
	ReadTimeout       time.Duration `env:"SVC_HTTP_READ_TIMEOUT"`
	WriteTimeout      time.Duration `env:"SVC_HTTP_WRITE_TIMEOUT"`
	IdleTimeout       time.Duration `env:"SVC_HTTP_IDLE_TIMEOUT"`
	MaxHeaderBytes    int           `env:"SVC_HTTP_MAX_HEADER_BYTES"`
	// MaxConnections is 0 until set: the default follows the descriptor
	// limit (defaultMaxConnections).
	MaxConnections maxConnections `env:"SVC_HTTP_MAX_CONNECTIONS"`
	DrainTimeout   time.Duration  `env:"SVC_HTTP_DRAIN_TIMEOUT"`
	ShutdownDelay  shutdownDelay  `env:"SVC_HTTP_SHUTDOWN_DELAY"`
	TLSCertFile    string         `env:"SVC_HTTP_TLS_CERT_FILE"`
	TLSKeyFile     string         `env:"SVC_HTTP_TLS_KEY_FILE"`
	TLSClientCerts bool           `env:"SVC_HTTP_TLS_CLIENT_CERTIFICATES"`
	// optErrs are the invalid options: options cannot fail on their own,
	// and every bad one is reported.
	optErrs []error
}

// SettingError is an invalid setting: an environment variable or an option
// of fxsvc. Setting names it (SVC_HTTP_READ_TIMEOUT,
// fxsvc.ReadTimeout, ...); Problem says what is wrong and never quotes a
// secret.
type SettingError struct {
	Setting string
	Problem string
}

func (e *SettingError) Error() string { return "fxsvc: " + e.Setting + ": " + e.Problem }

func defaultServeConfig() serveConfig {
	return serveConfig{
		Addr:              defaultAddr,
		ReadHeaderTimeout: defaultReadHeaderTimeout,
		ReadTimeout:       defaultReadTimeout,
		WriteTimeout:      defaultWriteTimeout,
		IdleTimeout:       defaultIdleTimeout,
		MaxHeaderBytes:    defaultMaxHeaderBytes,
		DrainTimeout:      defaultDrainTimeout,
	}
}

// loadServeConfig reads SVC_HTTP_* over the defaults, then applies opts.
// An invalid variable or option is a *SettingError naming it.
func loadServeConfig(opts []ServeOption) (serveConfig, error) {
	cfg := defaultServeConfig()
	err := env.ParseWithOptions(&cfg, env.Options{FuncMap: map[reflect.Type]env.ParserFunc{
		reflect.TypeFor[time.Duration]():  func(v string) (any, error) { return parsePositiveDuration(v) },
		reflect.TypeFor[shutdownDelay]():  parseShutdownDelay,
		reflect.TypeFor[maxConnections](): parseMaxConnections,
		reflect.TypeFor[int](): func(v string) (any, error) {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil || n <= 0 {
				return nil, errors.New("want a positive number of bytes, such as 65536")
			}
			return n, nil
		},
	}})
	var errs []error
	if err != nil {
		errs = append(errs, envSettingError(err, reflect.TypeFor[serveConfig]()))
	}
	for _, o := range opts {
		o(&cfg)
	}
	errs = append(errs, cfg.optErrs...)
	if len(errs) == 0 {
		if err := cfg.checkTLS(); err != nil {
			errs = append(errs, err)
		}
	}
	return cfg, joinErrors(errs)
}

// errBadDuration is the one message of every duration setting; it does not
// repeat the value.
var errBadDuration = errors.New("want a positive Go duration such as 30s or 2m, or a number of seconds")

// parsePositiveDuration accepts a Go duration ("30s") or a number of
// seconds ("30", "0.5"), as the other SVC_* duration settings do. Zero is
// refused: net/http reads it as "no limit", which is what these settings
// exist to prevent.
func parsePositiveDuration(v string) (time.Duration, error) {
	v = strings.TrimSpace(v)
	d, err := time.ParseDuration(v)
	if err != nil {
		f, ferr := strconv.ParseFloat(v, 64)
		if ferr != nil || math.IsNaN(f) || f*float64(time.Second) >= math.MaxInt64 {
			return 0, errBadDuration
		}
		d = time.Duration(f * float64(time.Second))
	}
	if d <= 0 {
		return 0, errBadDuration
	}
	return d, nil
}

// envSettingError turns caarlos0/env's error, which names the Go field,
// into one naming the variable to fix: a *SettingError for one bad
// variable, their errors.Join for several (every one is reported).
func envSettingError(err error, t reflect.Type) error {
	var agg env.AggregateError
	if !errors.As(err, &agg) {
		return fmt.Errorf("fxsvc: reading the SVC_HTTP_* variables: %w", err)
	}
	var errs []error
	for _, e := range agg.Errors {
		var pe env.ParseError
		if !errors.As(e, &pe) {
			errs = append(errs, fmt.Errorf("fxsvc: reading the SVC_HTTP_* variables: %w", e))
			continue
		}
		setting := pe.Name
		if f, ok := t.FieldByName(pe.Name); ok {
			setting, _, _ = strings.Cut(f.Tag.Get("env"), ",")
		}
		errs = append(errs, &SettingError{Setting: setting, Problem: parseProblem(pe.Err)})
	}
	return joinErrors(errs)
}

// numberWords say what strconv's parsers take, for a setting's error: its
// own message ("strconv.ParseBool: parsing \"yes\": invalid syntax")
// names Go's function rather than what to write.
var numberWords = map[string]string{
	"ParseBool":  "true or false",
	"ParseInt":   "a whole number",
	"ParseUint":  "a whole number of at least 0",
	"ParseFloat": "a number",
}

func parseProblem(err error) string {
	var ne *strconv.NumError
	if errors.As(err, &ne) {
		if want, ok := numberWords[ne.Func]; ok {
			if errors.Is(ne.Err, strconv.ErrRange) {
				return fmt.Sprintf("%q is out of range", ne.Num)
			}
			return fmt.Sprintf("%q is not %s", ne.Num, want)
		}
	}
	return err.Error()
}

// positiveOption records a non-positive duration given to option name.
func (c *serveConfig) positiveOption(name string, d time.Duration, set func()) {
	if d <= 0 {
		c.optErrs = append(c.optErrs, &SettingError{Setting: "fxsvc." + name, Problem: fmt.Sprintf("%v is not a positive duration", d)})
		return
	}
	set()
}

// Addr sets the listen address, overriding SVC_HTTP_ADDR. An empty addr
// fails the app's build: net.Listen would read it as every interface on a
// random port, the exposure the default address 127.0.0.1:8080 exists to prevent.
func Addr(addr string) ServeOption {
	return func(c *serveConfig) {
		if addr == "" {
			c.optErrs = append(c.optErrs, &SettingError{Setting: "fxsvc.Addr", Problem: "the address is empty: want host:port, such as 127.0.0.1:8080, or :8080 for every interface"})
			return
		}
		c.Addr = addr
	}
}

// DrainTimeout bounds the wait on stop for in-flight requests and hijacked
// connections' handlers, overriding SVC_HTTP_DRAIN_TIMEOUT; those still
// running then are cut off. A non-positive d fails the app's build.
func DrainTimeout(d time.Duration) ServeOption {
	return func(c *serveConfig) { c.positiveOption("DrainTimeout", d, func() { c.DrainTimeout = d }) }
}

// ReadHeaderTimeout overrides SVC_HTTP_READ_HEADER_TIMEOUT (default
// 10 s). A non-positive d fails the app's build.
func ReadHeaderTimeout(d time.Duration) ServeOption {
	return func(c *serveConfig) { c.positiveOption("ReadHeaderTimeout", d, func() { c.ReadHeaderTimeout = d }) }
}

// ReadTimeout overrides SVC_HTTP_READ_TIMEOUT (default 30 s).
// A non-positive d fails the app's build.
func ReadTimeout(d time.Duration) ServeOption {
	return func(c *serveConfig) { c.positiveOption("ReadTimeout", d, func() { c.ReadTimeout = d }) }
}

// WriteTimeout overrides SVC_HTTP_WRITE_TIMEOUT (default 60 s).
// A non-positive d fails the app's build.
func WriteTimeout(d time.Duration) ServeOption {
	return func(c *serveConfig) { c.positiveOption("WriteTimeout", d, func() { c.WriteTimeout = d }) }
}

// IdleTimeout overrides SVC_HTTP_IDLE_TIMEOUT (default 60 s).
// A non-positive d fails the app's build.
func IdleTimeout(d time.Duration) ServeOption {
	return func(c *serveConfig) { c.positiveOption("IdleTimeout", d, func() { c.IdleTimeout = d }) }
}

// MaxHeaderBytes overrides SVC_HTTP_MAX_HEADER_BYTES (default
// 64 KiB). A non-positive n fails the app's build.
func MaxHeaderBytes(n int) ServeOption {
	return func(c *serveConfig) {
		if n <= 0 {
			c.optErrs = append(c.optErrs, &SettingError{Setting: "fxsvc.MaxHeaderBytes", Problem: fmt.Sprintf("%d is not a positive number of bytes", n)})
			return
		}
		c.MaxHeaderBytes = n
	}
}

// maxConnections is SVC_HTTP_MAX_CONNECTIONS: a count of connections,
// whose errors say so rather than the bytes of the other int setting.
type maxConnections int

func parseMaxConnections(v string) (any, error) {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n <= 0 {
		return nil, errors.New("want a positive number of connections, such as 4000")
	}
	if problem := overDescriptorLimit(n, descriptorLimit()); problem != "" {
		return nil, errors.New(problem)
	}
	return maxConnections(n), nil
}

// overDescriptorLimit says why a cap of n connections cannot hold under
// the process's descriptor limit (0 when it cannot be read), "" when it
// can: each connection is a descriptor, so a cap above the limit is never
// reached, and the server fails accepting (EMFILE) instead of shedding.
func overDescriptorLimit(n int, limit uint64) string {
	if limit == 0 || uint64(n) <= limit {
		return ""
	}
	return fmt.Sprintf("want at most %d, the process's descriptor limit (ulimit -n): each connection takes a descriptor, so a larger cap is never reached; raise the limit first to allow more", limit)
}

// MaxConnections caps the server's open connections, overriding
// SVC_HTTP_MAX_CONNECTIONS (default: the process's descriptor limit less
// a tenth, at least 64, kept for its other files; 10000 where the limit
// cannot be read). Above nine tenths of the cap, each new connection
// first closes the oldest idle keep-alive connections and answers close
// their connection instead of keeping it alive; at the cap, with none
// idle, a new connection is reset at once. A non-positive n, or one above
// the process's descriptor limit, fails the app's build.
func MaxConnections(n int) ServeOption {
	return func(c *serveConfig) {
		if n <= 0 {
			c.optErrs = append(c.optErrs, &SettingError{Setting: "fxsvc.MaxConnections", Problem: fmt.Sprintf("%d is not a positive number of connections", n)})
			return
		}
		if problem := overDescriptorLimit(n, descriptorLimit()); problem != "" {
			c.optErrs = append(c.optErrs, &SettingError{Setting: "fxsvc.MaxConnections", Problem: fmt.Sprintf("%d: %s", n, problem)})
			return
		}
		c.MaxConnections = maxConnections(n)
	}
}

// maxConns is the cap in force: the set one, else the default.
func (c serveConfig) maxConns() int {
	if c.MaxConnections > 0 {
		return int(c.MaxConnections)
	}
	return defaultMaxConnections(descriptorLimit())
}
