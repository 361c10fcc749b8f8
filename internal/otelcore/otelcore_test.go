package otelcore

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/svckit/svc/secret"
)

func TestParseSeconds(t *testing.T) {
	tests := []struct {
		in      string
		want    time.Duration
		wantErr string
	}{
		{in: "2.5", want: 2500 * time.Millisecond},
		{in: " 60 ", want: time.Minute},
		{in: "500ms", want: 500 * time.Millisecond},
		{in: "0", wantErr: `"0" is not a positive number of seconds`},
		{in: "-1", wantErr: `"-1" is not a positive number of seconds`},
		{in: "NaN", wantErr: `"NaN" is not a positive number of seconds`},
		{in: "1e300", wantErr: `"1e300" is not a positive number of seconds`},
		{in: "1e-10", wantErr: `"1e-10" is below one nanosecond`},
		{in: "-5s", wantErr: `"-5s" is not a positive number of seconds (e.g. 60, 0.5) or a duration (e.g. 500ms)`},
		{in: "soon", wantErr: `"soon" is not a positive number of seconds (e.g. 60, 0.5) or a duration (e.g. 500ms)`},
	}
	for _, tt := range tests {
		got, err := ParseSeconds(tt.in, "60")
		if tt.wantErr != "" {
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("ParseSeconds(%q) error = %v, want %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseSeconds(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
}

func TestParseKeyValues(t *testing.T) {
	got, err := ParseKeyValues(" a = x%20y ,, b=2,", false)
	if err != nil || len(got) != 2 || got["a"] != "x y" || got["b"] != "2" {
		t.Fatalf("got %v, %v", got, err)
	}
	tests := []struct {
		in           string
		secretValues bool
		wantErr      string
	}{
		{in: "a=1,s3cret", wantErr: `member 2 "s3cret" is not key=value`},
		{in: "a=1,s3cret", secretValues: true, wantErr: "member 2 is not key=value"},
		{in: "=s3cret", secretValues: true, wantErr: "member 1 is not key=value"},
		{in: "k=s3cret%zz", secretValues: true, wantErr: `the value of "k" is not percent-encoded correctly`},
		{in: "a=1,X-Key: s3cret=%zz", secretValues: true, wantErr: "the value of member 2 is not percent-encoded correctly"},
	}
	for _, tt := range tests {
		_, err := ParseKeyValues(tt.in, tt.secretValues)
		if err == nil || err.Error() != tt.wantErr {
			t.Errorf("ParseKeyValues(%q, %v) error = %v, want %q", tt.in, tt.secretValues, err, tt.wantErr)
		}
	}
}

func TestParseHeaders(t *testing.T) {
	h, err := ParseHeaders("x-api-key=abc,x-tenant=acme%20corp")
	if err != nil || h["x-api-key"].Value() != "abc" || h["x-tenant"].Value() != "acme corp" {
		t.Fatalf("got %v, %v", h, err)
	}
	if _, err := ParseHeaders("x-api-key"); err == nil || strings.Contains(err.Error(), "x-api-key") {
		t.Fatalf("error %v: want a refusal that does not quote the member", err)
	}
}

func TestCheckHeaders(t *testing.T) {
	tests := []struct {
		h       map[string]secret.String
		wantErr string
	}{
		{h: map[string]secret.String{"X-Ok": "v a l"}},
		{h: map[string]secret.String{"bad name": "v"}, wantErr: "a header name holds a space, colon or other character a name may not " +
			"(write name=value pairs; the name is not shown, it may hold a value)"},
		{h: map[string]secret.String{"X-K": "s3cret\n"}, wantErr: `the value of header "X-K" holds a control character`},
	}
	for _, tt := range tests {
		err := CheckHeaders(tt.h)
		if (tt.wantErr == "" && err != nil) || (tt.wantErr != "" && (err == nil || err.Error() != tt.wantErr)) {
			t.Errorf("CheckHeaders(%v) = %v, want %q", tt.h, err, tt.wantErr)
		}
	}
	if !HasHeader(map[string]secret.String{"authorization": "x"}, "Authorization") || HasHeader(nil, "Authorization") {
		t.Error("HasHeader must compare names without regard to case")
	}
}

func TestEnvLoad(t *testing.T) {
	tests := []struct {
		val     string
		want    bool
		wantErr string
	}{
		{val: "", want: true},
		{val: " On ", want: true},
		{val: "n", want: false},
		{val: "0", want: false},
		{val: "maybe", wantErr: `"maybe" is not a boolean; use true or false`},
	}
	for _, tt := range tests {
		t.Setenv(EnvLoadVar, tt.val)
		got, err := EnvLoad()
		if tt.wantErr != "" {
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("%q: error = %v, want %q", tt.val, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%q: got %v, %v; want %v", tt.val, got, err, tt.want)
		}
	}
}

func TestFirstSet(t *testing.T) {
	t.Setenv("OTLPCONF_TEST_SPECIFIC", "  ")
	t.Setenv("OTLPCONF_TEST_GENERAL", " http://g ")
	if v, n := FirstSet("OTLPCONF_TEST_SPECIFIC", "OTLPCONF_TEST_GENERAL"); v != "http://g" || n != "OTLPCONF_TEST_GENERAL" {
		t.Fatalf("blank specific: got %q from %q", v, n)
	}
	t.Setenv("OTLPCONF_TEST_SPECIFIC", "http://s")
	if v, n := FirstSet("OTLPCONF_TEST_SPECIFIC", "OTLPCONF_TEST_GENERAL"); v != "http://s" || n != "OTLPCONF_TEST_SPECIFIC" {
		t.Fatalf("specific must win: got %q from %q", v, n)
	}
	if v, n := FirstSet("OTLPCONF_TEST_UNSET"); v != "" || n != "" {
		t.Fatalf("unset: got %q from %q", v, n)
	}
}

type testHeaders map[string]secret.String

func TestApplyFallbacks(t *testing.T) {
	t.Setenv(EnvServiceName, "orders")
	t.Setenv(EnvOTLPEndpoint, "http://general:4318")
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://traces:4318/v1/traces")
	t.Setenv(EnvOTLPHeaders, "x-k=general")
	t.Setenv("OTEL_EXPORTER_OTLP_METRICS_HEADERS", "x-k=metrics")

	var name string
	var ep secret.URL
	var h testHeaders
	src := map[string]string{}
	if err := ApplyFallbacks("TRACES", &name, &ep, &h, src); err != nil {
		t.Fatal(err)
	}
	if name != "orders" || ep.Value() != "http://traces:4318/v1/traces" || h["x-k"].Value() != "general" {
		t.Fatalf("got %q, %q, %v: the signal's own variable wins, another signal's is ignored", name, ep.Value(), h)
	}
	want := map[string]string{"service_name": EnvServiceName, "endpoint": "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "headers": EnvOTLPHeaders}
	if len(src) != len(want) || src["service_name"] != want["service_name"] || src["endpoint"] != want["endpoint"] || src["headers"] != want["headers"] {
		t.Fatalf("src = %v, want %v", src, want)
	}

	// Settings already given are left alone, and not attributed.
	name, ep, h = "mine", "http://mine", testHeaders{"x": "y"}
	src = map[string]string{}
	if err := ApplyFallbacks("METRICS", &name, &ep, &h, src); err != nil || name != "mine" || ep.Value() != "http://mine" || h["x"].Value() != "y" || len(h) != 1 || len(src) != 0 {
		t.Fatalf("got %q, %q, %v, src %v, %v", name, ep.Value(), h, src, err)
	}

	t.Setenv("OTEL_EXPORTER_OTLP_METRICS_HEADERS", "s3cret")
	h = nil
	err := ApplyFallbacks("METRICS", &name, &ep, &h, map[string]string{})
	var se *SettingError
	if !errors.As(err, &se) || *se != (SettingError{Setting: "OTEL_EXPORTER_OTLP_METRICS_HEADERS", Field: "headers", Reason: "member 1 is not key=value"}) {
		t.Fatalf("got %v, want a SettingError naming the variable without its value", err)
	}
}
