package fxsvc

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func TestDefaultLoggerSettings(t *testing.T) {
	for _, tc := range []struct {
		name, level, format string
		// wantErr names the variable refused; "" for none.
		wantErr string
		// wantInfo and wantWarn say which of an info and a warning line
		// are written; wantPrefix is how a written line starts.
		wantInfo, wantWarn bool
		wantPrefix         string
	}{
		{name: "unset", wantInfo: true, wantWarn: true, wantPrefix: `{"level":"info"`},
		{name: "debug", level: "debug", wantInfo: true, wantWarn: true, wantPrefix: `{"level":"info"`},
		{name: "warn, any case", level: " WARN ", wantWarn: true, wantPrefix: `{"level":"warn"`},
		{name: "error", level: "error", wantPrefix: ""},
		{name: "console", format: "console", wantInfo: true, wantWarn: true, wantPrefix: "20"},
		{name: "json", format: "JSON", wantInfo: true, wantWarn: true, wantPrefix: `{"level":"info"`},
		{name: "bad level", level: "loud", wantErr: "SVC_LOG_LEVEL"},
		{name: "fatal is not offered", level: "fatal", wantErr: "SVC_LOG_LEVEL"},
		{name: "bad format", format: "xml", wantErr: "SVC_LOG_FORMAT"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(logLevelVar, tc.level)
			t.Setenv(logFormatVar, tc.format)
			var buf bytes.Buffer
			log, err := newDefaultLogger(&buf)
			if tc.wantErr != "" {
				var se *SettingError
				if !errors.As(err, &se) || se.Setting != tc.wantErr {
					t.Fatalf("error %v, want a *SettingError for %s", err, tc.wantErr)
				}
				if _, err := DefaultLogger(); err == nil {
					t.Fatal("DefaultLogger accepts what newDefaultLogger refuses")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			log.Info("an info line")
			log.Warn("a warning")
			out := buf.String()
			if got := strings.Contains(out, "an info line"); got != tc.wantInfo {
				t.Errorf("info written: %v, want %v:\n%s", got, tc.wantInfo, out)
			}
			if got := strings.Contains(out, "a warning"); got != tc.wantWarn {
				t.Errorf("warning written: %v, want %v:\n%s", got, tc.wantWarn, out)
			}
			if !strings.HasPrefix(out, tc.wantPrefix) {
				t.Errorf("output starts %q, want %q", out, tc.wantPrefix)
			}
		})
	}
}

// Both bad variables are reported, not the first only.
func TestBothBadLogVariablesAreReported(t *testing.T) {
	t.Setenv(logLevelVar, "loud")
	t.Setenv(logFormatVar, "xml")
	err := logSettingsCheck()
	if msg := err.Error(); !strings.Contains(msg, logLevelVar) || !strings.Contains(msg, logFormatVar) {
		t.Fatalf("%v", err)
	}
}

func TestSettingsReportIsDeduplicatedAndSorted(t *testing.T) {
	a, b := errors.New("b: second"), errors.New("a: first")
	err := settingsErrors([]error{a, b, errors.New("b: second")})
	var se *settingsReport
	if !errors.As(err, &se) || len(se.errs) != 2 || se.errs[0] != b || se.errs[1] != a {
		t.Fatalf("%#v", err)
	}
	if settingsErrors(nil) != nil {
		t.Fatal("no errors must be nil")
	}
	if !errors.Is(err, a) {
		t.Fatal("errors.Is does not reach the settings' errors")
	}
}
