package metrics_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/svckit/svc/modules/metrics"
	"github.com/svckit/svc/secret"
)

// The endpoint's credentials, header values and the Basic password print
// as *** through every formatting path, and read back with Value.
func TestConfigMasksSecrets(t *testing.T) {
	const (
		urlPass = "urlpa55word"
		hdrVal  = "hdrs3cret"
		pass    = "basicpa55"
	)
	c := metrics.Config{
		Export: metrics.Export{
			Endpoint:          "https://user:" + urlPass + "@collector.example:4318/v1/metrics",
			Headers:           map[string]secret.String{"x-api-key": hdrVal},
			BasicAuthUsername: "svc",
			BasicAuthPassword: pass,
		},
	}
	var zbuf bytes.Buffer
	zl := zap.New(zapcore.NewCore(zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig()), zapcore.AddSync(&zbuf), zap.DebugLevel))
	zl.Info("cfg", zap.Any("config", c), zap.Reflect("reflect", c), zap.Stringer("endpoint", c.Endpoint),
		zap.Any("password", c.BasicAuthPassword), zap.Any("headers", c.Headers), zap.Stringer("auth", metrics.AuthorizationHeader(c)))
	var sbuf bytes.Buffer
	slog.New(slog.NewJSONHandler(&sbuf, nil)).Info("cfg", "config", c, "password", c.BasicAuthPassword, "endpoint", c.Endpoint)
	js, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	outputs := map[string]string{
		"%v":   fmt.Sprintf("%v", c),
		"%+v":  fmt.Sprintf("%+v", c),
		"%#v":  fmt.Sprintf("%#v", c),
		"%s":   fmt.Sprintf("%s", c),
		"%q":   fmt.Sprintf("%q", c.BasicAuthPassword),
		"json": string(js),
		"zap":  zbuf.String(),
		"slog": sbuf.String(),
		"auth": fmt.Sprint(metrics.AuthorizationHeader(c)),
	}
	for name, out := range outputs {
		for _, secret := range []string{urlPass, hdrVal, pass, "c3ZjOmJhc2ljcGE1NQ=="} {
			if strings.Contains(out, secret) {
				t.Errorf("%s leaks %q: %s", name, secret, out)
			}
		}
		if !strings.Contains(out, "***") {
			t.Errorf("%s shows no mask: %s", name, out)
		}
	}
	if !strings.Contains(outputs["%+v"], "https://***@collector.example:4318/v1/metrics") {
		t.Errorf("endpoint not shown with masked credentials: %s", outputs["%+v"])
	}
	if c.Endpoint.Value() != "https://user:"+urlPass+"@collector.example:4318/v1/metrics" ||
		c.Headers["x-api-key"].Value() != hdrVal || c.BasicAuthPassword.Value() != pass {
		t.Fatal("Value() must read the secrets back")
	}
}

// A header written curl-style ("name: value") with a token ending in "="
// parses as one name holding the value; the refusal must not quote it.
func TestHeaderRefusalNeverQuotesAValueInTheName(t *testing.T) {
	for _, v := range []string{
		"Authorization: Basic dXNlcjpwYXNzd29yZA==",
		"x-api-key:c2VjcmV0a2V5=%zz",
	} {
		setEnv(t, map[string]string{"OTEL_EXPORTER_OTLP_HEADERS": v, "SVC_METRICS_EXPORTER": "otlp-http"})
		_, err := metrics.New()
		if err == nil {
			t.Fatalf("%q accepted", v)
		}
		if !strings.Contains(err.Error(), "OTEL_EXPORTER_OTLP_HEADERS") {
			t.Errorf("the refusal must name the variable: %v", err)
		}
		for _, s := range []string{"dXNlcjpwYXNzd29yZA", "c2VjcmV0a2V5"} {
			if strings.Contains(err.Error(), s) {
				t.Errorf("the refusal quotes the secret: %v", err)
			}
		}
	}
}
