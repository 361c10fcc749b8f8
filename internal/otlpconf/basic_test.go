package otlpconf

import (
	"encoding/base64"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/svckit/svc/secret"
)

func TestCheckEndpoint(t *testing.T) {
	tests := []struct {
		name     string
		b        Basic
		wantUser bool
		want     string // the refusal's reason; "" for none
	}{
		{name: "plain", b: Basic{Endpoint: "https://c:4318"}},
		{name: "credentials in URL", b: Basic{Endpoint: "https://u:p@c"}, wantUser: true},
		{name: "no host", b: Basic{Endpoint: "/v1/metrics"}, want: "not an absolute http or https URL with a host"},
		{name: "scheme", b: Basic{Endpoint: "ftp://c"}, want: `scheme "ftp" is not http or https`},
		{name: "both credentials", b: Basic{Endpoint: "https://u:p@c", Username: "v"}, want: "the URL carries credentials and Basic credentials are set too; keep one"},
		{name: "both by password", b: Basic{Endpoint: "https://u:p@c", Password: "q"}, want: "the URL carries credentials and Basic credentials are set too; keep one"},
		{name: "colon in user", b: Basic{Endpoint: "https://a%3Ab:p@c"}, want: "the user name in the URL holds a colon (RFC 7617)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			user, f := tt.b.CheckEndpoint()
			if tt.want == "" {
				if f != nil || user != tt.wantUser {
					t.Fatalf("got %v, %+v; want %v, nil", user, f, tt.wantUser)
				}
				return
			}
			if f == nil || *f != (Fault{Field: "endpoint", Reason: tt.want}) || user {
				t.Fatalf("got %v, %+v; want endpoint fault %q", user, f, tt.want)
			}
		})
	}
}

func TestCheckBasicAuth(t *testing.T) {
	tests := []struct {
		name         string
		b            Basic
		fromEndpoint bool
		want         *Fault
	}{
		{name: "none", b: Basic{}},
		{name: "both", b: Basic{Username: "u", Password: "p"}},
		{name: "from endpoint", b: Basic{Username: "a:b"}, fromEndpoint: true},
		{name: "user only", b: Basic{Username: "u"}, want: &Fault{Field: "basic_auth_username", Missing: "basic_auth_password", Reason: "a Basic user name is set without a password; set both or neither"}},
		{name: "password only", b: Basic{Password: "p"}, want: &Fault{Field: "basic_auth_password", Missing: "basic_auth_username", Reason: "a Basic password is set without a user name; set both or neither"}},
		{name: "colon", b: Basic{Username: "a:b", Password: "p"}, want: &Fault{Field: "basic_auth_username", Reason: "a Basic user name must not hold a colon (RFC 7617)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.b.CheckBasicAuth(tt.fromEndpoint)
			if (got == nil) != (tt.want == nil) || (got != nil && *got != *tt.want) {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestAuthorizationHeader(t *testing.T) {
	basic := func(s string) secret.String {
		return secret.String("Basic " + base64.StdEncoding.EncodeToString([]byte(s)))
	}
	tests := []struct {
		b    Basic
		want secret.String
	}{
		{b: Basic{Endpoint: "https://c"}, want: ""},
		{b: Basic{Username: "u", Password: "p"}, want: basic("u:p")},
		{b: Basic{Endpoint: "https://e:f@c"}, want: basic("e:f")},
		{b: Basic{Endpoint: "https://e:f@c", Username: "u", Password: "p"}, want: basic("u:p")},
	}
	for _, tt := range tests {
		if got := tt.b.AuthorizationHeader(); got.Value() != tt.want.Value() {
			t.Errorf("%+v: got %q, want %q", tt.b, got.Value(), tt.want.Value())
		}
	}
}

func TestWithSignalPath(t *testing.T) {
	tests := []struct {
		ep   string
		base bool
		want string
	}{
		{ep: "http://c:4318", want: "http://c:4318/v1/traces"},
		{ep: "http://c:4318/", want: "http://c:4318/v1/traces"},
		{ep: "http://c:4318/custom", want: "http://c:4318/custom"},
		{ep: "http://c:4318/prefix/", base: true, want: "http://c:4318/prefix/v1/traces"},
		{ep: "http://c:4318/a%2Fb", base: true, want: "http://c:4318/a/b/v1/traces"},
		{ep: "://bad", base: true, want: "://bad"},
	}
	for _, tt := range tests {
		if got := WithSignalPath(secret.URL(tt.ep), tt.base, "/v1/traces").Value(); got != tt.want {
			t.Errorf("WithSignalPath(%q, %v) = %q, want %q", tt.ep, tt.base, got, tt.want)
		}
	}
}

// The OTel env spec's path rules: the general variable is a base URL, the
// per-signal one is used as is (root path when it has none), an explicit
// endpoint without a path gets the signal path.
func TestHTTPEndpoint(t *testing.T) {
	tests := []struct{ ep, setting, want string }{
		{"http://c:4318", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://c:4318/"},
		{"http://c:4318/", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://c:4318/"},
		{"http://c:4318/custom", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://c:4318/custom"},
		{"http://c:4318", EnvOTLPEndpoint, "http://c:4318/v1/traces"},
		{"http://c:4318/p", EnvOTLPEndpoint, "http://c:4318/p/v1/traces"},
		{"http://c:4318", "SVC_TRACING_ENDPOINT", "http://c:4318/v1/traces"},
		{"http://c:4318", "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "http://c:4318/v1/traces"}, // the other signal's: not ours
		{"http://c:4318/x", "Config.Endpoint", "http://c:4318/x"},
	}
	for _, tt := range tests {
		if got := HTTPEndpoint(secret.URL(tt.ep), tt.setting, "TRACES", "/v1/traces").Value(); got != tt.want {
			t.Errorf("HTTPEndpoint(%q, %s) = %q, want %q", tt.ep, tt.setting, got, tt.want)
		}
	}
}

func TestRedact(t *testing.T) {
	if Redact(nil, Secrets{}) != nil {
		t.Fatal("Redact(nil) must be nil")
	}
	s := Secrets{Basic: Basic{Endpoint: "https://c", Username: "svc", Password: "pa55word"}, Headers: map[string]secret.String{"x-key": "k3ysecret", "x-short": "ab"}}
	b64 := base64.StdEncoding.EncodeToString([]byte("svc:pa55word"))
	cause := errors.New("post: pa55word k3ysecret Basic " + b64 + " then " + b64 + " ab")
	err := Redact(cause, s)
	if want := "post: *** *** *** then *** ab"; err.Error() != want {
		t.Fatalf("got %q, want %q", err, want)
	}
	if errors.Is(err, cause) {
		t.Fatal("a redacted error must not unwrap to the cause that holds the secret")
	}
	u := Secrets{Basic: Basic{Endpoint: "https://user1:pw123@c"}}
	if got := Redact(errors.New(`Post "https://user1:pw123@c/v1": refused for pw123`), u).Error(); strings.Contains(got, "pw123") || strings.Contains(got, "user1") {
		t.Fatalf("URL credentials leaked: %q", got)
	}
	q := Secrets{Basic: Basic{Endpoint: "https://c/v1?api_key=k3y999#t0k3n"}}
	if got := Redact(errors.New(`Post "https://c/v1?api_key=k3y999#t0k3n": refused`), q).Error(); strings.Contains(got, "k3y999") || strings.Contains(got, "t0k3n") {
		t.Fatalf("URL query or fragment leaked: %q", got)
	}
	clean := errors.New("connection refused")
	if err := Redact(clean, s); err.Error() != clean.Error() || !errors.Is(err, clean) {
		t.Fatalf("an error without secrets must keep its text and cause: %v", err)
	}
}

var testFields = Fields{
	{Spec: "endpoint", GoName: "Endpoint", Option: "metrics.WithEndpoint"},
	{Spec: "basic_auth_username", GoName: "BasicAuthUsername", Option: "metrics.WithBasicAuth"},
	{Spec: "basic_auth_password", GoName: "BasicAuthPassword", Option: "metrics.WithBasicAuth"},
	{Spec: "export_timeout", GoName: "ExportTimeout", Option: "metrics.WithExportTimeout"},
}

func TestFieldsNaming(t *testing.T) {
	src := map[string]string{"endpoint": "OTEL_EXPORTER_OTLP_ENDPOINT"}
	if got := testFields.Setting(src, "endpoint"); got != "OTEL_EXPORTER_OTLP_ENDPOINT" {
		t.Errorf("Setting from src = %q", got)
	}
	if got := testFields.Setting(src, "export_timeout"); got != "Config.ExportTimeout" {
		t.Errorf("Setting from Config = %q", got)
	}
	if got := testFields.Setting(src, "unknown"); got != "Config.unknown" {
		t.Errorf("Setting of an unknown field = %q", got)
	}
	tests := []struct {
		given, want string
	}{
		{given: "SVC_METRICS_BASIC_AUTH_USERNAME", want: "SVC_METRICS_BASIC_AUTH_PASSWORD"},
		{given: "metrics.WithBasicAuth", want: "metrics.WithBasicAuth"},
		{given: "", want: "Config.BasicAuthPassword"},
	}
	for _, tt := range tests {
		src := map[string]string{}
		if tt.given != "" {
			src["basic_auth_username"] = tt.given
		}
		if got := testFields.PartnerSetting(src, "basic_auth_username", "basic_auth_password", "SVC_METRICS_", "metrics."); got != tt.want {
			t.Errorf("partner of %q = %q, want %q", tt.given, got, tt.want)
		}
	}
}

type envTarget struct {
	Endpoint          string            `env:"ENDPOINT"`
	BasicAuthUsername string            `env:"BASIC_AUTH_USERNAME"`
	ExportTimeout     time.Duration     `env:"EXPORT_TIMEOUT"`
	Attrs             map[string]string `env:"ATTRS"`
}

func TestReadEnv(t *testing.T) {
	keys := testFields.Keys(reflect.TypeFor[envTarget](), "OTLPCONF_T_")
	t.Setenv("OTLPCONF_T_ENDPOINT", "http://c")
	t.Setenv("OTLPCONF_T_EXPORT_TIMEOUT", "1.5")
	t.Setenv("OTLPCONF_T_ATTRS", "a=b%20c")
	var got envTarget
	src := map[string]string{}
	if err := ReadEnv(&got, "OTLPCONF_T_", "60", keys, src); err != nil {
		t.Fatal(err)
	}
	if got.Endpoint != "http://c" || got.ExportTimeout != 1500*time.Millisecond || got.Attrs["a"] != "b c" {
		t.Fatalf("got %+v", got)
	}
	// Set variables are noted under their setting name; one outside the
	// table under its own name; an unset one not at all.
	want := map[string]string{"endpoint": "OTLPCONF_T_ENDPOINT", "export_timeout": "OTLPCONF_T_EXPORT_TIMEOUT", "OTLPCONF_T_ATTRS": "OTLPCONF_T_ATTRS"}
	if !reflect.DeepEqual(src, want) {
		t.Fatalf("src = %v, want %v", src, want)
	}

	t.Setenv("OTLPCONF_T_EXPORT_TIMEOUT", "soon")
	err := ReadEnv(&envTarget{}, "OTLPCONF_T_", "60", keys, map[string]string{})
	var se *SettingError
	if !errors.As(err, &se) || *se != (SettingError{Setting: "OTLPCONF_T_EXPORT_TIMEOUT", Field: "export_timeout", Reason: `"soon" is not a positive number of seconds (e.g. 60, 0.5) or a duration (e.g. 500ms)`}) {
		t.Fatalf("got %v, want a SettingError naming the variable", err)
	}
}

// A secret found inside a longer one must not split it: replaced first, a
// header value inside the base64 credential left the rest of it readable.
func TestRedactLongestSecretFirst(t *testing.T) {
	b64 := base64.StdEncoding.EncodeToString([]byte("svc:pa55word"))
	s := Secrets{Basic: Basic{Endpoint: "https://c", Username: "svc", Password: "pa55word"},
		Headers: map[string]secret.String{"x-tenant": secret.String(b64[4:8])}}
	if got := Redact(errors.New("refused Basic "+b64), s).Error(); got != "refused ***" {
		t.Fatalf("got %q, want the whole credential hidden", got)
	}
}
