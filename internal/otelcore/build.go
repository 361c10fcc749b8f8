package otelcore

import (
	"fmt"
	"io"
	"os"
	"reflect"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// Builder is what a signal's options set: Config fields in Cfg (a
// Config), and the rest.
type Builder[C any] struct {
	Cfg     C
	Name    string
	Log     *zap.Logger
	Console io.Writer
	// DefaultExporter replaces auto when no setting chose an exporter.
	DefaultExporter string
	// set maps the spec of each Config field an option set to that option.
	set map[string]string
}

// Take copies into Cfg every field that from sets (every non-zero one),
// maps cloned, and notes WithConfig as their source.
func (b *Builder[C]) Take(s *Signal, from C) {
	d, f := reflect.ValueOf(&b.Cfg).Elem(), reflect.ValueOf(from)
	for _, fd := range s.fields() {
		if v := f.FieldByName(fd.GoName); !v.IsZero() {
			d.FieldByName(fd.GoName).Set(cloned(v))
			b.set[fd.Spec] = s.withConfig(fd.GoName)
		}
	}
}

// Build makes a component from opts, over the environment (env: New) or
// over cfg as given (FromConfig): load merges the settings, own checks the
// signal's own fields and fills their defaults, newComponent resolves the
// rest, and wrap builds the signal's component around the shared half and
// the resolved Config.
func Build[C, T any, O ~func(*Builder[C])](s *Signal, cfg C, env bool, opts []O, own func(*C, map[string]string) error, wrap func(*Component, C) T) (T, error) {
	c, cfg, err := build(s, cfg, env, opts, own)
	if err != nil {
		var none T
		return none, err
	}
	return wrap(c, cfg), nil
}

func build[C any, O ~func(*Builder[C])](s *Signal, cfg C, env bool, opts []O, own func(*C, map[string]string) error) (*Component, C, error) {
	b := &Builder[C]{Name: "default", set: map[string]string{}}
	for _, o := range opts {
		if o != nil {
			o(b)
		}
	}
	src, err := s.load(&cfg, b.set, b.Cfg, env)
	if err != nil {
		return nil, cfg, err
	}
	if exp := reflect.ValueOf(&cfg).Elem().FieldByName("Exporter"); exp.String() == "" && b.DefaultExporter != "" {
		exp.SetString(b.DefaultExporter)
		src["exporter"] = s.Name + ".WithDefaultExporter"
	}
	if err := own(&cfg, src); err != nil {
		return nil, cfg, err
	}
	c, err := s.newComponent(b.Name, b.Log, b.Console, &cfg, src)
	return c, cfg, err
}

func cloned(v reflect.Value) reflect.Value {
	switch v.Kind() {
	case reflect.Map:
		c := reflect.MakeMapWithSize(v.Type(), v.Len())
		for it := v.MapRange(); it.Next(); {
			c.SetMapIndex(it.Key(), it.Value())
		}
		return c
	case reflect.Pointer:
		c := reflect.New(v.Type().Elem())
		c.Elem().Set(v.Elem())
		return c
	}
	return v
}

// load merges what a component is built from into cfg (a *Config): with
// env, the SVC_<SIGNAL>_* variables (unless SVC_ENV_LOAD says not to), then the fields the options set (named in set,
// taken from from, the builder's Config), then the OpenTelemetry fallbacks for fields still
// empty; without env (FromConfig), only the options over cfg. It returns
// where each setting came from. Refusals are *ConfigError values naming
// the variable.
func (s *Signal) load(cfg any, set map[string]string, from any, env bool) (map[string]string, error) {
	src := map[string]string{}
	if env {
		load, err := s.envLoad()
		if err != nil {
			return nil, err
		}
		if load {
			if err := s.readEnv(cfg, src); err != nil {
				return nil, err
			}
		}
	}
	d, f := reflect.ValueOf(cfg).Elem(), reflect.ValueOf(from)
	for spec, option := range set {
		goName := s.fields().BySpec(spec).GoName
		d.FieldByName(goName).Set(f.FieldByName(goName))
		src[spec] = option
	}
	if !env {
		return src, nil
	}
	e := exportOf(cfg)
	if err := ApplyFallbacks(s.OTEL, &e.ServiceName, &e.Endpoint, &e.Headers, src); err != nil {
		return nil, s.configError(err)
	}
	if s.Fallbacks != nil {
		return src, s.Fallbacks(cfg, src)
	}
	return src, nil
}

func (s *Signal) envLoad() (bool, error) {
	load, err := EnvLoad()
	if err != nil {
		return false, &ConfigError{Signal: s.Name, Setting: EnvLoadVar, Field: "env_load", Reason: err.Error()}
	}
	return load, nil
}

// readEnv fills cfg from SVC_<SIGNAL>_* and records in src which variable
// set which field.
func (s *Signal) readEnv(cfg any, src map[string]string) error {
	prefix := s.EnvPrefix()
	keys := s.fields().Keys(reflect.TypeOf(cfg).Elem(), prefix)
	if err := ReadEnv(cfg, prefix, s.Example, keys, src); err != nil {
		if ce := s.configError(err); ce != err {
			return ce
		}
		return fmt.Errorf("%s: read %s* variables: %w", s.Name, prefix, err)
	}
	return nil
}

// exportOf is the Export embedded in cfg (a *Config).
func exportOf(cfg any) *Export {
	return reflect.ValueOf(cfg).Elem().FieldByName("Export").Addr().Interface().(*Export)
}

// defaultLogger writes warnings and errors as JSON to standard error, so an
// abandoned flush is never silent when no logger was given.
func defaultLogger() *zap.Logger {
	enc := zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig())
	return zap.New(zapcore.NewCore(enc, zapcore.Lock(os.Stderr), zap.WarnLevel))
}
