package tracing_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/svckit/svc/modules/tracing"
	_ "github.com/svckit/svc/modules/tracing/console"
	_ "github.com/svckit/svc/modules/tracing/otlphttp"
	"github.com/svckit/svc/secret"
)

// The environment conventions: SVC_TRACING_* first, then the OTEL_*
// fallbacks (signal-specific before general), then the defaults.
func TestEnvironmentResolution(t *testing.T) {
	type want struct {
		exporter string
		endpoint string
		service  string
		sampler  string
		ratio    string // "" for nil
		shutdown time.Duration
		headers  string // k=v of the single header, "" for none
	}
	def := want{exporter: "none", sampler: "parentbased_always_on", shutdown: time.Second}
	with := func(f func(*want)) want { w := def; f(&w); return w }
	for _, tc := range []struct {
		name string
		env  map[string]string
		want want
	}{
		{"nothing set: inactive", nil, def},
		{"endpoint: auto picks otlp-http and adds the path", map[string]string{"SVC_TRACING_ENDPOINT": "http://c:4318"},
			with(func(w *want) { w.exporter, w.endpoint = "otlp-http", "http://c:4318/v1/traces" })},
		{"general OTEL endpoint is a base URL", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318/base"},
			with(func(w *want) { w.exporter, w.endpoint = "otlp-http", "http://c:4318/base/v1/traces" })},
		{"traces endpoint wins and is used as given", map[string]string{
			"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://c:4318/custom", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://other:4318"},
			with(func(w *want) { w.exporter, w.endpoint = "otlp-http", "http://c:4318/custom" })},
		// OTel env spec: the per-signal URL is used as is; without a path
		// it gets the root path, never /v1/traces.
		{"traces endpoint without a path gets the root path, not /v1/traces", map[string]string{
			"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://c:4318"},
			with(func(w *want) { w.exporter, w.endpoint = "otlp-http", "http://c:4318/" })},
		{"SVC endpoint wins over OTEL", map[string]string{
			"SVC_TRACING_ENDPOINT": "http://svc:4318/x", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://c:4318/custom"},
			with(func(w *want) { w.exporter, w.endpoint = "otlp-http", "http://svc:4318/x" })},
		{"exporter read case-insensitively", map[string]string{"SVC_TRACING_EXPORTER": " OTLP-HTTP "},
			with(func(w *want) { w.exporter = "otlp-http" })},
		{"console", map[string]string{"SVC_TRACING_EXPORTER": "console"},
			with(func(w *want) { w.exporter = "console" })},
		{"none beats an endpoint", map[string]string{"SVC_TRACING_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"},
			with(func(w *want) { w.endpoint = "http://c:4318" })},
		{"traces headers win over general ones", map[string]string{
			"OTEL_EXPORTER_OTLP_TRACES_HEADERS": "x-a=1", "OTEL_EXPORTER_OTLP_HEADERS": "x-b=2"},
			with(func(w *want) { w.headers = "x-a=1" })},
		{"SVC headers win, values percent-decoded", map[string]string{
			"SVC_TRACING_HEADERS": "x-c=a%20b", "OTEL_EXPORTER_OTLP_TRACES_HEADERS": "x-a=1"},
			with(func(w *want) { w.headers = "x-c=a b" })},
		{"OTEL service name", map[string]string{"OTEL_SERVICE_NAME": "otel-name"},
			with(func(w *want) { w.service = "otel-name" })},
		{"SVC service name wins", map[string]string{"OTEL_SERVICE_NAME": "otel-name", "SVC_TRACING_SERVICE_NAME": "svc-name"},
			with(func(w *want) { w.service = "svc-name" })},
		{"OTEL sampler and its argument", map[string]string{"OTEL_TRACES_SAMPLER": "parentbased_traceidratio", "OTEL_TRACES_SAMPLER_ARG": "0.25"},
			with(func(w *want) { w.sampler, w.ratio = "parentbased_traceidratio", "0.25" })},
		{"OTEL argument ignored beside a sampler without one", map[string]string{"OTEL_TRACES_SAMPLER": "always_on", "OTEL_TRACES_SAMPLER_ARG": "0.5"},
			with(func(w *want) { w.sampler = "always_on" })},
		{"SVC sampler wins; a ratio of 0 is kept", map[string]string{
			"SVC_TRACING_SAMPLER": "TraceIDRatio", "SVC_TRACING_SAMPLER_RATIO": "0", "OTEL_TRACES_SAMPLER": "always_off"},
			with(func(w *want) { w.sampler, w.ratio = "traceidratio", "0" })},
		{"shutdown timeout in seconds", map[string]string{"SVC_TRACING_SHUTDOWN_TIMEOUT": "0.25"},
			with(func(w *want) { w.shutdown = 250 * time.Millisecond })},
		{"shutdown timeout as a duration", map[string]string{"SVC_TRACING_SHUTDOWN_TIMEOUT": "2s"},
			with(func(w *want) { w.shutdown = 2 * time.Second })},
		{"SVC_ENV_LOAD=false skips SVC_TRACING_* but not OTEL_*", map[string]string{
			"SVC_ENV_LOAD": "false", "SVC_TRACING_EXPORTER": "console", "OTEL_SERVICE_NAME": "otel-name"},
			with(func(w *want) { w.service = "otel-name" })},
	} {
		t.Run(tc.name, func(t *testing.T) {
			setEnv(t, tc.env)
			tr, err := tracing.New()
			if err != nil {
				t.Fatal(err)
			}
			c := tr.Resolved()
			got := want{exporter: c.Exporter, endpoint: c.Endpoint.Value(), service: c.ServiceName, sampler: c.Sampler, shutdown: c.ShutdownTimeout}
			if c.SamplerRatio != nil {
				got.ratio = fmt.Sprint(*c.SamplerRatio)
			}
			for k, v := range c.Headers {
				got.headers = k + "=" + v.Value()
			}
			if got != tc.want {
				t.Fatalf("got %+v\nwant %+v", got, tc.want)
			}
			if tr.Exporter() != tc.want.exporter {
				t.Fatalf("Exporter() = %v", tr.Exporter())
			}
			wantShutdown := tc.want.shutdown
			if tc.want.exporter == "none" {
				wantShutdown = 0 // inactive: nothing to flush, nothing to budget
			}
			if tr.ShutdownTimeout() != wantShutdown {
				t.Fatalf("ShutdownTimeout() = %v, want %v", tr.ShutdownTimeout(), wantShutdown)
			}
		})
	}
}

// Every refusal names the setting to fix and never repeats a secret.
func TestConfigErrorsNameTheSetting(t *testing.T) {
	const pw = "hunter2-secret"
	for _, tc := range []struct {
		name    string
		env     map[string]string
		opts    []tracing.Option
		setting string
		field   string
		reason  string
	}{
		{"unknown exporter", map[string]string{"SVC_TRACING_EXPORTER": "jaeger"}, nil,
			"SVC_TRACING_EXPORTER", "exporter", "unknown exporter"},
		{"exporter not linked", map[string]string{"SVC_TRACING_EXPORTER": "otlp-grpc"}, nil,
			"SVC_TRACING_EXPORTER", "exporter", `import _ "github.com/svckit/svc/modules/tracing/otlpgrpc"`},
		{"exporter not linked, by option", nil, []tracing.Option{tracing.WithConfig(tracing.Config{Exporter: "otlp-grpc"})},
			"Config.Exporter of tracing.WithConfig", "exporter", "tracing/otlpgrpc"},
		{"endpoint scheme", map[string]string{"SVC_TRACING_ENDPOINT": "ftp://u:" + pw + "@c"}, nil,
			"SVC_TRACING_ENDPOINT", "endpoint", "scheme"},
		{"endpoint without host", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "collector:4318"}, nil,
			"OTEL_EXPORTER_OTLP_ENDPOINT", "endpoint", "absolute"},
		{"endpoint credentials beside Basic ones", map[string]string{"SVC_TRACING_ENDPOINT": "http://u:" + pw + "@c",
			"SVC_TRACING_BASIC_AUTH_USERNAME": "u", "SVC_TRACING_BASIC_AUTH_PASSWORD": pw}, nil,
			"SVC_TRACING_ENDPOINT", "endpoint", "keep one"},
		{"user without password", map[string]string{"SVC_TRACING_BASIC_AUTH_USERNAME": "u"}, nil,
			"SVC_TRACING_BASIC_AUTH_PASSWORD", "basic_auth_password", "without a password"},
		{"password without user", map[string]string{"SVC_TRACING_BASIC_AUTH_PASSWORD": pw}, nil,
			"SVC_TRACING_BASIC_AUTH_USERNAME", "basic_auth_username", "without a user name"},
		{"password without user, by option", nil, []tracing.Option{tracing.WithConfig(tracing.Config{Export: tracing.Export{BasicAuthPassword: secret.String(pw)}})},
			"Config.BasicAuthUsername of tracing.WithConfig", "basic_auth_username", "without a user name"},
		{"Authorization header beside Basic", map[string]string{"SVC_TRACING_HEADERS": "Authorization=Bearer%20" + pw,
			"SVC_TRACING_BASIC_AUTH_USERNAME": "u", "SVC_TRACING_BASIC_AUTH_PASSWORD": pw}, nil,
			"SVC_TRACING_HEADERS", "headers", "keep one"},
		{"header not key=value", map[string]string{"OTEL_EXPORTER_OTLP_HEADERS": pw}, nil,
			"OTEL_EXPORTER_OTLP_HEADERS", "headers", "not key=value"},
		{"header value with a control character", map[string]string{"SVC_TRACING_HEADERS": "x-key=" + pw + "%0A"}, nil,
			"SVC_TRACING_HEADERS", "headers", "control character"},
		{"unknown sampler", map[string]string{"SVC_TRACING_SAMPLER": "jaeger_remote"}, nil,
			"SVC_TRACING_SAMPLER", "sampler", "unknown sampler"},
		{"unknown OTEL sampler", map[string]string{"OTEL_TRACES_SAMPLER": "xray"}, nil,
			"OTEL_TRACES_SAMPLER", "sampler", "unknown sampler"},
		{"OTEL sampler argument not a number", map[string]string{"OTEL_TRACES_SAMPLER": "traceidratio", "OTEL_TRACES_SAMPLER_ARG": "half"}, nil,
			"OTEL_TRACES_SAMPLER_ARG", "sampler_ratio", "from 0 to 1"},
		{"OTEL sampler argument out of range", map[string]string{"OTEL_TRACES_SAMPLER": "traceidratio", "OTEL_TRACES_SAMPLER_ARG": "2"}, nil,
			"OTEL_TRACES_SAMPLER_ARG", "sampler_ratio", "from 0 to 1"},
		{"ratio out of range", map[string]string{"SVC_TRACING_SAMPLER": "traceidratio", "SVC_TRACING_SAMPLER_RATIO": "1.5"}, nil,
			"SVC_TRACING_SAMPLER_RATIO", "sampler_ratio", "from 0 to 1"},
		{"ratio beside a sampler that takes none", map[string]string{"SVC_TRACING_SAMPLER_RATIO": "0.5"}, nil,
			"SVC_TRACING_SAMPLER_RATIO", "sampler_ratio", "takes no ratio"},
		{"ratio by option beside the default sampler", nil, []tracing.Option{tracing.WithConfig(tracing.Config{SamplerRatio: ratio(0.5)})},
			"Config.SamplerRatio of tracing.WithConfig", "sampler_ratio", "takes no ratio"},
		{"ratio not a number", map[string]string{"SVC_TRACING_SAMPLER_RATIO": "lots"}, nil,
			"SVC_TRACING_SAMPLER_RATIO", "sampler_ratio", "lots"},
		{"shutdown timeout negative", map[string]string{"SVC_TRACING_SHUTDOWN_TIMEOUT": "-1"}, nil,
			"SVC_TRACING_SHUTDOWN_TIMEOUT", "shutdown_timeout", "positive"},
		{"export timeout zero", map[string]string{"SVC_TRACING_EXPORT_TIMEOUT": "0"}, nil,
			"SVC_TRACING_EXPORT_TIMEOUT", "export_timeout", "positive"},
		{"shutdown timeout negative, by option", nil, []tracing.Option{tracing.WithConfig(tracing.Config{Export: tracing.Export{ShutdownTimeout: -time.Second}})},
			"Config.ShutdownTimeout of tracing.WithConfig", "shutdown_timeout", "positive"},
		{"resource attribute without a key", map[string]string{"SVC_TRACING_RESOURCE_ATTRIBUTES": "=v"}, nil,
			"SVC_TRACING_RESOURCE_ATTRIBUTES", "resource_attributes", "key=value"},
		{"SVC_ENV_LOAD not a boolean", map[string]string{"SVC_ENV_LOAD": "maybe"}, nil,
			"SVC_ENV_LOAD", "env_load", "boolean"},
		{"service name with a control character", map[string]string{"SVC_TRACING_SERVICE_NAME": "orders\r\nx"}, nil,
			"SVC_TRACING_SERVICE_NAME", "service_name", "control character"},
		{"empty name", nil, []tracing.Option{tracing.WithName("")},
			"tracing.WithName", "name", "empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			setEnv(t, tc.env)
			_, err := tracing.New(tc.opts...)
			ce := configError(t, err)
			if ce.Setting != tc.setting || ce.Field != tc.field || !strings.Contains(ce.Reason, tc.reason) {
				t.Fatalf("got %q (setting %q, field %q); want setting %q, field %q, reason with %q",
					err, ce.Setting, ce.Field, tc.setting, tc.field, tc.reason)
			}
			if !strings.Contains(err.Error(), tc.setting) {
				t.Fatalf("message %q does not name %s", err, tc.setting)
			}
			if strings.Contains(err.Error(), pw) {
				t.Fatalf("message %q repeats the secret", err)
			}
		})
	}
}

// FromConfig reads no environment and names Config fields.
func TestFromConfig(t *testing.T) {
	setEnv(t, map[string]string{"SVC_TRACING_EXPORTER": "console", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"})
	tr, err := tracing.FromConfig(tracing.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if got := tr.Resolved(); got.Exporter != "none" || got.Endpoint != "" {
		t.Fatalf("FromConfig read the environment: %+v", got)
	}
	for _, tc := range []struct {
		cfg     tracing.Config
		setting string
	}{
		{tracing.Config{Export: tracing.Export{ShutdownTimeout: -time.Second}}, "Config.ShutdownTimeout"},
		{tracing.Config{Export: tracing.Export{BasicAuthUsername: "u"}}, "Config.BasicAuthPassword"},
		{tracing.Config{Exporter: "otlp-grpc"}, "Config.Exporter"},
		{tracing.Config{Sampler: "sometimes"}, "Config.Sampler"},
	} {
		_, err := tracing.FromConfig(tc.cfg)
		if ce := configError(t, err); ce.Setting != tc.setting {
			t.Fatalf("%+v: setting %q, want %q", tc.cfg, ce.Setting, tc.setting)
		}
	}
}

// Options win over the environment; the OTEL_* fallbacks fill only what
// neither set.
func TestOptionsWinOverTheEnvironment(t *testing.T) {
	setEnv(t, map[string]string{"SVC_TRACING_EXPORTER": "none", "SVC_TRACING_SERVICE_NAME": "env", "OTEL_TRACES_SAMPLER": "always_off"})
	tr, err := tracing.New(tracing.WithConfig(tracing.Config{Exporter: "console", Export: tracing.Export{ServiceName: "code"}}))
	if err != nil {
		t.Fatal(err)
	}
	c := tr.Resolved()
	if c.Exporter != "console" || c.ServiceName != "code" || c.Sampler != "always_off" {
		t.Fatalf("%+v", c)
	}
}

// A Config prints its secrets masked on every path.
func TestConfigPrintsSecretsMasked(t *testing.T) {
	const pw = "hunter2-secret"
	c := tracing.Config{
		Export: tracing.Export{
			Endpoint:          secret.URL("https://user:" + pw + "@collector:4318/v1/traces"),
			Headers:           map[string]secret.String{"x-api-key": secret.String(pw)},
			BasicAuthUsername: "u",
			BasicAuthPassword: secret.String(pw),
		},
	}
	js, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{fmt.Sprint(c), fmt.Sprintf("%+v", c), fmt.Sprintf("%#v", c), string(js)} {
		if strings.Contains(out, pw) {
			t.Fatalf("printed config holds the secret: %s", out)
		}
		if !strings.Contains(out, "***") {
			t.Fatalf("printed config shows no mask: %s", out)
		}
	}
	if tracing.AuthorizationHeader(c).Value() != "Basic dTpodW50ZXIyLXNlY3JldA==" {
		t.Fatalf("authorization %q", tracing.AuthorizationHeader(c).Value())
	}
}
