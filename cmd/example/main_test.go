package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"go.uber.org/fx"
	"go.uber.org/fx/fxtest"
	"go.uber.org/zap"

	"github.com/svckit/svc/fxsvc"
	svcerrors "github.com/svckit/svc/modules/errors"
)

// startExample runs the example app on a free loopback port.
func startExample(t *testing.T, extra ...fx.Option) string {
	t.Helper()
	t.Setenv("SVC_HTTP_ADDR", "127.0.0.1:0")
	var srv *fxsvc.Server
	opts := append(options(), fx.Decorate(func() *zap.Logger { return zap.NewNop() }), fx.Populate(&srv))
	app := fxtest.New(t, append(opts, extra...)...)
	app.RequireStart()
	t.Cleanup(app.RequireStop)
	return "http://" + srv.Addr()
}

func TestEveryErrorRouteInBothFormats(t *testing.T) {
	for _, format := range []string{"rfc9457", "tmf"} {
		t.Run(format, func(t *testing.T) {
			t.Setenv("SVC_EXAMPLE_ERRORS", format)
			base := startExample(t)
			for kind, err := range errorDemo {
				resp, e := http.Get(base + "/errors/" + kind)
				if e != nil {
					t.Fatal(e)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				var m map[string]any
				if e := json.Unmarshal(body, &m); e != nil {
					t.Fatalf("%s: not JSON: %s", kind, body)
				}
				if resp.Header.Get("Cache-Control") != "no-store" || resp.Header.Get("X-Content-Type-Options") != "nosniff" {
					t.Errorf("%s: safety headers missing: %v", kind, resp.Header)
				}
				wantCT := "application/problem+json"
				if format == "tmf" {
					wantCT = "application/json"
					if m["@type"] != "Error" {
						t.Errorf("%s: %s", kind, body)
					}
				} else if int(m["status"].(float64)) != resp.StatusCode {
					t.Errorf("%s: status member %v vs %d", kind, m["status"], resp.StatusCode)
				}
				if resp.Header.Get("Content-Type") != wantCT {
					t.Errorf("%s: Content-Type %q", kind, resp.Header.Get("Content-Type"))
				}
				if err == errUnhandled && resp.StatusCode != 500 {
					t.Errorf("unhandled: %d", resp.StatusCode)
				}
			}
		})
	}
}

// Regression: issue 14 item 19.
func TestErrorFormatRefusesUnknownValuesNamingTheVariable(t *testing.T) {
	cases := []struct {
		value string
		ok    bool
	}{
		{"", true}, {"rfc9457", true}, {"problem", true}, {"TMF", true}, {"tmf", true},
		{"xml", false}, {"tmf ", false}, {"json", false},
	}
	for _, c := range cases {
		t.Run(c.value, func(t *testing.T) {
			t.Setenv("SVC_EXAMPLE_ERRORS", c.value)
			err := fx.New(fx.NopLogger, errorFormat(), fx.Invoke(func(*svcerrors.Responses) {})).Err()
			if c.ok != (err == nil) {
				t.Fatalf("%q: %v", c.value, err)
			}
			if err != nil && (!strings.Contains(err.Error(), "SVC_EXAMPLE_ERRORS") || !strings.Contains(err.Error(), "rfc9457") ||
				!strings.Contains(err.Error(), "tmf")) {
				t.Fatalf("the error must name the variable and the allowed values: %v", err)
			}
		})
	}
}

// Regression: issue 25 item 7.
// A bad SVC_EXAMPLE_RESOURCE failed as "authn: Resource(...)", without the
// variable: the error names it, says what is wrong, and carries no
// credentials; under Run it is reported with the other bad settings.
func TestTheExampleRefusesABadResourceNamingTheVariable(t *testing.T) {
	cases := []struct{ value, want string }{
		{"http://api.example", "must be an https URL"},
		{"https://api.example/#top", "must not have a fragment"},
		{"https://user:s3cret@api.example", "must not carry credentials"},
		{"https://user:s3cret@api.example:port", "is not a URL"},
	}
	for _, c := range cases {
		t.Run(c.value, func(t *testing.T) {
			t.Setenv("SVC_EXAMPLE_RESOURCE", c.value)
			err := buildErr(t)
			if err == nil || !strings.Contains(err.Error(), "SVC_EXAMPLE_RESOURCE=") || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want one naming SVC_EXAMPLE_RESOURCE and saying %q", err, c.want)
			}
			if strings.Contains(err.Error(), "s3cret") {
				t.Fatalf("the error repeats the password: %v", err)
			}
		})
	}
	t.Run("reported with the others", func(t *testing.T) {
		t.Setenv("SVC_EXAMPLE_RESOURCE", "http://api.example")
		t.Setenv("SVC_HTTP_READ_TIMEOUT", "soon")
		var out, errOut bytes.Buffer
		if code := fxsvc.Run([]string{"check"}, &out, &errOut, options()...); code != 1 ||
			!strings.Contains(errOut.String(), "2 invalid settings") || !strings.Contains(errOut.String(), "SVC_EXAMPLE_RESOURCE") {
			t.Fatalf("exit %d:\n%s", code, errOut.String())
		}
	})
	t.Setenv("SVC_EXAMPLE_RESOURCE", "https://api.example/v1")
	if err := checkResource(); err != nil {
		t.Fatalf("a good resource is refused: %v", err)
	}
}

// Regression: issue 14 item 19.
func TestTheExampleRefusesABlankAudienceNamingTheVariable(t *testing.T) {
	t.Setenv("SVC_AUTHN_ISSUER", "https://idp.example")
	t.Setenv("SVC_AUTHN_AUDIENCE", "  ")
	err := fx.New(append(options(), fx.NopLogger)...).Err()
	if err == nil || !strings.Contains(err.Error(), "SVC_AUTHN_AUDIENCE") {
		t.Fatalf("got %v", err)
	}
}

// An audience with no issuer would otherwise be ignored for the
// development issuer.
func TestTheExampleRefusesAnAudienceWithoutAnIssuer(t *testing.T) {
	t.Setenv("SVC_AUTHN_ISSUER", "")
	t.Setenv("SVC_AUTHN_AUDIENCE", "https://api.example")
	err := fx.New(fx.NopLogger, trust()).Err()
	if err == nil || !strings.Contains(err.Error(), "SVC_AUTHN_ISSUER is not") {
		t.Fatalf("got %v", err)
	}
}
