package metrics_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/svckit/svc/modules/metrics"
	"github.com/svckit/svc/secret"
)

func newResolved(t *testing.T, opts ...metrics.Option) metrics.Config {
	t.Helper()
	m, err := metrics.New(opts...)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return metrics.ResolvedConfig(m)
}

// Spec table "Metrics component configuration": every default.
func TestDefaults(t *testing.T) {
	cleanEnv(t)
	c := newResolved(t)
	want := metrics.Config{
		Exporter:       "none", // auto with no endpoint
		ExportInterval: 60 * time.Second,
		Export:         metrics.Export{ExportTimeout: 30 * time.Second, ShutdownTimeout: 5 * time.Second},
	}
	if !reflect.DeepEqual(c, want) {
		t.Fatalf("defaults:\n got %#v\nwant %#v", c, want)
	}
	if metrics.AuthorizationHeader(c) != "" {
		t.Fatal("authorization_header must be null without Basic credentials")
	}
	// FromConfig with a zero Config takes the same defaults.
	m, err := metrics.FromConfig(metrics.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if got := metrics.ResolvedConfig(m); !reflect.DeepEqual(got, want) {
		t.Fatalf("FromConfig defaults: %#v", got)
	}
	if m.Name() != "default" {
		t.Fatalf("name = %q", m.Name())
	}
}

// Every SVC_METRICS_* variable sets its field.
func TestEnvEveryField(t *testing.T) {
	setEnv(t, map[string]string{
		"SVC_METRICS_SERVICE_NAME":        "billing",
		"SVC_METRICS_EXPORTER":            "otlp-grpc",
		"SVC_METRICS_ENDPOINT":            "https://collector.example:4317",
		"SVC_METRICS_HEADERS":             "x-api-key=k3y,x-tenant=acme%20corp",
		"SVC_METRICS_BASIC_AUTH_USERNAME": "Aladdin",
		"SVC_METRICS_BASIC_AUTH_PASSWORD": "open sesame",
		"SVC_METRICS_EXPORT_INTERVAL":     "15",
		"SVC_METRICS_EXPORT_TIMEOUT":      "2.5",
		"SVC_METRICS_RESOURCE_ATTRIBUTES": "deployment.environment=prod,team=a%2Cb",
		"SVC_METRICS_SHUTDOWN_TIMEOUT":    "750ms",
	})
	c := newResolved(t)
	want := metrics.Config{
		Exporter:       "otlp-grpc",
		ExportInterval: 15 * time.Second,
		Export: metrics.Export{
			ServiceName:        "billing",
			Endpoint:           "https://collector.example:4317",
			Headers:            map[string]secret.String{"x-api-key": "k3y", "x-tenant": "acme corp"},
			BasicAuthUsername:  "Aladdin",
			BasicAuthPassword:  "open sesame",
			ExportTimeout:      2500 * time.Millisecond,
			ResourceAttributes: map[string]string{"deployment.environment": "prod", "team": "a,b"},
			ShutdownTimeout:    750 * time.Millisecond,
		},
	}
	if !reflect.DeepEqual(c, want) {
		t.Fatalf("from env:\n got %#v\nwant %#v", c, want)
	}
	// RFC 7617's own example.
	if got := metrics.AuthorizationHeader(c).Value(); got != "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==" {
		t.Fatalf("authorization_header = %q", got)
	}
}

// The OTEL_* fallbacks, their precedence, and the endpoint path rules.
func TestEnvFallbacks(t *testing.T) {
	cases := []struct {
		name string
		env  map[string]string
		opts []metrics.Option
		want func(c metrics.Config) string // "" when fine
	}{
		{"OTEL_SERVICE_NAME", map[string]string{"OTEL_SERVICE_NAME": "svc-a"}, nil,
			func(c metrics.Config) string { return eq(c.ServiceName, "svc-a") }},
		{"SVC wins over OTEL_SERVICE_NAME", map[string]string{"OTEL_SERVICE_NAME": "svc-a", "SVC_METRICS_SERVICE_NAME": "svc-b"}, nil,
			func(c metrics.Config) string { return eq(c.ServiceName, "svc-b") }},
		{"option wins over env", map[string]string{"SVC_METRICS_SERVICE_NAME": "svc-b"}, []metrics.Option{metrics.WithConfig(metrics.Config{Export: metrics.Export{ServiceName: "svc-c"}})},
			func(c metrics.Config) string { return eq(c.ServiceName, "svc-c") }},
		{"OTEL_EXPORTER_OTLP_ENDPOINT is a base URL", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c.example:4318"}, nil,
			func(c metrics.Config) string {
				return eq(c.Endpoint.Value(), "http://c.example:4318/v1/metrics") + eq(c.Exporter, "otlp-http")
			}},
		{"OTEL_EXPORTER_OTLP_ENDPOINT base with a path", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c.example:4318/otlp/"}, nil,
			func(c metrics.Config) string { return eq(c.Endpoint.Value(), "http://c.example:4318/otlp/v1/metrics") }},
		{"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT used as given and wins", map[string]string{
			"OTEL_EXPORTER_OTLP_ENDPOINT": "http://a.example:4318", "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": "http://b.example:9/custom"}, nil,
			func(c metrics.Config) string {
				return eq(c.Endpoint.Value(), "http://b.example:9/custom") + eq(c.Exporter, "otlp-http")
			}},
		// OTel env spec: the per-signal URL is used as is; without a path
		// it gets the root path, never /v1/metrics.
		{"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT without a path gets the root path", map[string]string{
			"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": "http://b.example:4318"}, nil,
			func(c metrics.Config) string { return eq(c.Endpoint.Value(), "http://b.example:4318/") }},
		{"SVC_METRICS_ENDPOINT wins over OTEL", map[string]string{
			"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": "http://b.example:9/custom", "SVC_METRICS_ENDPOINT": "http://s.example:4318/x"}, nil,
			func(c metrics.Config) string { return eq(c.Endpoint.Value(), "http://s.example:4318/x") }},
		{"explicit endpoint without path gets /v1/metrics", nil, []metrics.Option{metrics.WithConfig(metrics.Config{Export: metrics.Export{Endpoint: secret.URL("http://e.example:4318")}})},
			func(c metrics.Config) string { return eq(c.Endpoint.Value(), "http://e.example:4318/v1/metrics") }},
		{"grpc keeps the endpoint as given", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://g.example:4317", "SVC_METRICS_EXPORTER": "otlp-grpc"}, nil,
			func(c metrics.Config) string { return eq(c.Endpoint.Value(), "http://g.example:4317") }},
		{"OTEL_EXPORTER_OTLP_HEADERS", map[string]string{"OTEL_EXPORTER_OTLP_HEADERS": "a=1, b = two%20words"}, nil,
			func(c metrics.Config) string { return eq(hdr(c.Headers), "a=1;b=two words") }},
		{"OTEL_EXPORTER_OTLP_METRICS_HEADERS wins", map[string]string{"OTEL_EXPORTER_OTLP_HEADERS": "a=1", "OTEL_EXPORTER_OTLP_METRICS_HEADERS": "m=2"}, nil,
			func(c metrics.Config) string { return eq(hdr(c.Headers), "m=2") }},
		{"SVC_METRICS_HEADERS wins over OTEL", map[string]string{"OTEL_EXPORTER_OTLP_HEADERS": "a=1", "SVC_METRICS_HEADERS": "s=3"}, nil,
			func(c metrics.Config) string { return eq(hdr(c.Headers), "s=3") }},
		{"endpoint credentials become Basic", nil, []metrics.Option{metrics.WithConfig(metrics.Config{Export: metrics.Export{Endpoint: secret.URL("https://Aladdin:open%20sesame@c.example/v1/metrics")}})},
			func(c metrics.Config) string {
				return eq(metrics.AuthorizationHeader(c).Value(), "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==")
			}},
		{"SVC_ENV_LOAD=false skips SVC_METRICS_* but not OTEL_*", map[string]string{
			"SVC_ENV_LOAD": "false", "SVC_METRICS_SERVICE_NAME": "ignored", "OTEL_SERVICE_NAME": "kept"}, nil,
			func(c metrics.Config) string { return eq(c.ServiceName, "kept") }},
		{"SVC_ENV_LOAD=0 skips SVC_METRICS_*", map[string]string{"SVC_ENV_LOAD": "0", "SVC_METRICS_EXPORTER": "prometheus"}, nil,
			func(c metrics.Config) string { return eq(c.Exporter, "none") }},
		{"SVC_ENV_LOAD=TRUE reads them", map[string]string{"SVC_ENV_LOAD": "TRUE", "SVC_METRICS_EXPORTER": "prometheus"}, nil,
			func(c metrics.Config) string { return eq(c.Exporter, "prometheus") }},
		{"WithDefaultExporter replaces auto", nil, []metrics.Option{metrics.WithDefaultExporter("prometheus")},
			func(c metrics.Config) string { return eq(c.Exporter, "prometheus") }},
		{"SVC_METRICS_EXPORTER wins over WithDefaultExporter", map[string]string{"SVC_METRICS_EXPORTER": "console"},
			[]metrics.Option{metrics.WithDefaultExporter("prometheus")},
			func(c metrics.Config) string { return eq(c.Exporter, "console") }},
		{"auto with endpoint is otlp-http", map[string]string{"SVC_METRICS_EXPORTER": "auto", "SVC_METRICS_ENDPOINT": "http://x.example:4318"}, nil,
			func(c metrics.Config) string { return eq(c.Exporter, "otlp-http") }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			setEnv(t, tc.env)
			if msg := tc.want(newResolved(t, tc.opts...)); msg != "" {
				t.Fatal(msg)
			}
		})
	}
}

func eq(got, want string) string {
	if got != want {
		return "got " + got + ", want " + want + "; "
	}
	return ""
}

func hdr(h map[string]secret.String) string {
	var parts []string
	for _, k := range []string{"a", "b", "m", "s"} {
		if v, ok := h[k]; ok {
			parts = append(parts, k+"="+v.Value())
		}
	}
	if len(parts) != len(h) {
		return "unexpected keys"
	}
	return strings.Join(parts, ";")
}

// FromConfig reads no environment at all.
func TestFromConfigBypassesEnv(t *testing.T) {
	setEnv(t, map[string]string{
		"SVC_METRICS_EXPORTER": "prometheus", "OTEL_SERVICE_NAME": "env", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://env.example:4318",
		"OTEL_EXPORTER_OTLP_HEADERS": "a=b",
	})
	m, err := metrics.FromConfig(metrics.Config{ExportInterval: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	c := metrics.ResolvedConfig(m)
	if c.Exporter != "none" || c.ServiceName != "" || c.Endpoint != "" || len(c.Headers) != 0 || c.ExportInterval != time.Second {
		t.Fatalf("FromConfig read the environment: %#v", c)
	}
	m, err = metrics.FromConfig(metrics.Config{Exporter: "prometheus"}, metrics.WithName("admin"), metrics.WithConfig(metrics.Config{Export: metrics.Export{ServiceName: "code"}}))
	if err != nil {
		t.Fatal(err)
	}
	if c := metrics.ResolvedConfig(m); c.Exporter != "prometheus" || c.ServiceName != "code" || m.Name() != "admin" {
		t.Fatalf("FromConfig options: %#v name %q", c, m.Name())
	}
}

// Exporter values are case-insensitive on every path.
func TestExporterCaseInsensitive(t *testing.T) {
	cases := map[string]string{
		"AUTO": "none", "Otlp-Http": "otlp-http", "OTLP-GRPC": "otlp-grpc",
		"Prometheus": "prometheus", " console ": "console", "NONE": "none",
	}
	for in, want := range cases {
		t.Run(in, func(t *testing.T) {
			setEnv(t, map[string]string{"SVC_METRICS_EXPORTER": in})
			if got := newResolved(t).Exporter; got != want {
				t.Errorf("env: %q → %q, want %q", in, got, want)
			}
			cleanEnv(t)
			if got := newResolved(t, metrics.WithConfig(metrics.Config{Exporter: in})).Exporter; got != want {
				t.Errorf("option: %q → %q, want %q", in, got, want)
			}
			m, err := metrics.FromConfig(metrics.Config{Exporter: in})
			if err != nil {
				t.Fatal(err)
			}
			if got := metrics.ResolvedConfig(m).Exporter; got != want {
				t.Errorf("Config: %q → %q, want %q", in, got, want)
			}
		})
	}
}

// Invalid values fail at construction with an error naming the variable,
// option or field, and never quoting a secret.
func TestInvalidValuesNameTheSetting(t *testing.T) {
	const s3 = "s3cr3tvalue"
	cases := []struct {
		name    string
		env     map[string]string
		opts    []metrics.Option
		cfg     *metrics.Config
		setting string
	}{
		{"exporter", map[string]string{"SVC_METRICS_EXPORTER": "kafka"}, nil, nil, "SVC_METRICS_EXPORTER"},
		{"interval word", map[string]string{"SVC_METRICS_EXPORT_INTERVAL": "soon"}, nil, nil, "SVC_METRICS_EXPORT_INTERVAL"},
		{"interval zero", map[string]string{"SVC_METRICS_EXPORT_INTERVAL": "0"}, nil, nil, "SVC_METRICS_EXPORT_INTERVAL"},
		{"interval negative", map[string]string{"SVC_METRICS_EXPORT_INTERVAL": "-1"}, nil, nil, "SVC_METRICS_EXPORT_INTERVAL"},
		{"timeout NaN", map[string]string{"SVC_METRICS_EXPORT_TIMEOUT": "NaN"}, nil, nil, "SVC_METRICS_EXPORT_TIMEOUT"},
		{"timeout Inf", map[string]string{"SVC_METRICS_EXPORT_TIMEOUT": "+Inf"}, nil, nil, "SVC_METRICS_EXPORT_TIMEOUT"},
		{"shutdown zero duration", map[string]string{"SVC_METRICS_SHUTDOWN_TIMEOUT": "0s"}, nil, nil, "SVC_METRICS_SHUTDOWN_TIMEOUT"},
		{"endpoint scheme", map[string]string{"SVC_METRICS_ENDPOINT": "ftp://u:" + s3 + "@h.example/"}, nil, nil, "SVC_METRICS_ENDPOINT"},
		{"endpoint relative", map[string]string{"SVC_METRICS_ENDPOINT": "collector:" + s3}, nil, nil, "SVC_METRICS_ENDPOINT"},
		{"endpoint from OTEL", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://u:" + s3 + "@bad host/"}, nil, nil, "OTEL_EXPORTER_OTLP_ENDPOINT"},
		{"headers not k=v", map[string]string{"SVC_METRICS_HEADERS": s3}, nil, nil, "SVC_METRICS_HEADERS"},
		{"headers bad escape", map[string]string{"OTEL_EXPORTER_OTLP_HEADERS": "k=" + s3 + "%zz"}, nil, nil, "OTEL_EXPORTER_OTLP_HEADERS"},
		{"headers bad name", map[string]string{"SVC_METRICS_HEADERS": "bad name=" + s3}, nil, nil, "SVC_METRICS_HEADERS"},
		{"headers control char", map[string]string{"SVC_METRICS_HEADERS": "k=" + s3 + "%0A"}, nil, nil, "SVC_METRICS_HEADERS"},
		{"user without password", map[string]string{"SVC_METRICS_BASIC_AUTH_USERNAME": "u"}, nil, nil, "SVC_METRICS_BASIC_AUTH_PASSWORD"},
		{"password without user", map[string]string{"SVC_METRICS_BASIC_AUTH_PASSWORD": s3}, nil, nil, "SVC_METRICS_BASIC_AUTH_USERNAME"},
		{"user with colon", map[string]string{"SVC_METRICS_BASIC_AUTH_USERNAME": "a:b", "SVC_METRICS_BASIC_AUTH_PASSWORD": s3}, nil, nil, "SVC_METRICS_BASIC_AUTH_USERNAME"},
		{"Authorization header and Basic", map[string]string{"SVC_METRICS_HEADERS": "Authorization=Bearer%20" + s3,
			"SVC_METRICS_BASIC_AUTH_USERNAME": "u", "SVC_METRICS_BASIC_AUTH_PASSWORD": s3}, nil, nil, "SVC_METRICS_HEADERS"},
		{"endpoint credentials and Basic", map[string]string{"SVC_METRICS_ENDPOINT": "http://u:" + s3 + "@h.example",
			"SVC_METRICS_BASIC_AUTH_USERNAME": "u", "SVC_METRICS_BASIC_AUTH_PASSWORD": s3}, nil, nil, "SVC_METRICS_ENDPOINT"},
		{"resource attributes", map[string]string{"SVC_METRICS_RESOURCE_ATTRIBUTES": "novalue"}, nil, nil, "SVC_METRICS_RESOURCE_ATTRIBUTES"},
		{"SVC_ENV_LOAD", map[string]string{"SVC_ENV_LOAD": "maybe"}, nil, nil, "SVC_ENV_LOAD"},
		// Regression: issue 25 item 7: control characters in the service name.
		{"service name with a newline", map[string]string{"SVC_METRICS_SERVICE_NAME": "orders\nlevel=error"}, nil, nil, "SVC_METRICS_SERVICE_NAME"},
		{"service name with an escape", map[string]string{"SVC_METRICS_SERVICE_NAME": "orders\x1b[2J"}, nil, nil, "SVC_METRICS_SERVICE_NAME"},
		{"service name not UTF-8", map[string]string{"OTEL_SERVICE_NAME": "orders\xff"}, nil, nil, "OTEL_SERVICE_NAME"},
		{"option service name with a control character", nil, []metrics.Option{metrics.WithConfig(metrics.Config{Export: metrics.Export{ServiceName: "orders\x00"}})}, nil, "Config.ServiceName of metrics.WithConfig"},
		{"option exporter", nil, []metrics.Option{metrics.WithConfig(metrics.Config{Exporter: "kafka"})}, nil, "Config.Exporter of metrics.WithConfig"},
		{"option interval negative", nil, []metrics.Option{metrics.WithConfig(metrics.Config{ExportInterval: -time.Second})}, nil, "Config.ExportInterval of metrics.WithConfig"},
		{"option shutdown negative", nil, []metrics.Option{metrics.WithConfig(metrics.Config{Export: metrics.Export{ShutdownTimeout: -time.Second}})}, nil, "Config.ShutdownTimeout of metrics.WithConfig"},
		{"option endpoint", nil, []metrics.Option{metrics.WithConfig(metrics.Config{Export: metrics.Export{Endpoint: secret.URL("mailto:" + s3 + "@x")}})}, nil, "Config.Endpoint of metrics.WithConfig"},
		{"option basic auth", nil, []metrics.Option{metrics.WithConfig(metrics.Config{Export: metrics.Export{BasicAuthPassword: secret.String(s3)}})}, nil, "Config.BasicAuthUsername of metrics.WithConfig"},
		{"option headers", nil, []metrics.Option{metrics.WithConfig(metrics.Config{Export: metrics.Export{Headers: map[string]secret.String{"x": secret.String(s3 + "\r\n")}}})}, nil, "Config.Headers of metrics.WithConfig"},
		{"option default exporter", nil, []metrics.Option{metrics.WithDefaultExporter("statsd")}, nil, "metrics.WithDefaultExporter"},
		{"option name", nil, []metrics.Option{metrics.WithName("")}, nil, "metrics.WithName"},
		{"Config interval", nil, nil, &metrics.Config{Export: metrics.Export{ExportTimeout: -time.Second}}, "Config.ExportTimeout"},
		{"Config exporter", nil, nil, &metrics.Config{Exporter: "statsd"}, "Config.Exporter"},
		{"Config endpoint", nil, nil, &metrics.Config{Export: metrics.Export{Endpoint: secret.URL("//" + s3)}}, "Config.Endpoint"},
		{"Config password", nil, nil, &metrics.Config{Export: metrics.Export{BasicAuthPassword: s3}}, "Config.BasicAuthUsername"},
		{"Config attribute key", nil, nil, &metrics.Config{Export: metrics.Export{ResourceAttributes: map[string]string{" ": "x"}}}, "Config.ResourceAttributes"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			setEnv(t, tc.env)
			var err error
			if tc.cfg != nil {
				_, err = metrics.FromConfig(*tc.cfg)
			} else {
				_, err = metrics.New(tc.opts...)
			}
			var ce *metrics.ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("err = %v, want *ConfigError", err)
			}
			if ce.Setting != tc.setting || !strings.Contains(err.Error(), tc.setting) {
				t.Fatalf("error names %q (%v), want %q", ce.Setting, err, tc.setting)
			}
			if strings.Contains(err.Error(), s3) {
				t.Fatalf("error repeats a secret: %v", err)
			}
			if ce.Signal != "metrics" || !strings.HasPrefix(err.Error(), "metrics: ") {
				t.Fatalf("a metrics refusal must say so: %v", err)
			}
		})
	}
}
