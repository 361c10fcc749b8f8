package secret_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/svckit/svc/secret"
)

const clear = "hunter2-topsecret"

// printers lists every path a Go program commonly shows a value through.
func printers() map[string]func(v any) string {
	return map[string]func(v any) string{
		"%v":      func(v any) string { return fmt.Sprintf("%v", v) },
		"%+v":     func(v any) string { return fmt.Sprintf("%+v", v) },
		"%#v":     func(v any) string { return fmt.Sprintf("%#v", v) },
		"%s":      func(v any) string { return fmt.Sprintf("%s", v) },
		"%q":      func(v any) string { return fmt.Sprintf("%q", v) },
		"%x":      func(v any) string { return fmt.Sprintf("%x", v) },
		"%10s":    func(v any) string { return fmt.Sprintf("%10s", v) },
		"%d":      func(v any) string { return fmt.Sprintf("%d", v) },
		"Sprint":  func(v any) string { return fmt.Sprint(v) },
		"Println": func(v any) string { return fmt.Sprintln(v) },
		"struct %+v": func(v any) string {
			return fmt.Sprintf("%+v", struct{ S any }{v})
		},
		"struct %#v": func(v any) string {
			return fmt.Sprintf("%#v", struct{ S any }{v})
		},
		"json": func(v any) string {
			b, err := json.Marshal(map[string]any{"s": v})
			if err != nil {
				return "ERR " + err.Error()
			}
			return string(b)
		},
		"slog": func(v any) string {
			var buf bytes.Buffer
			slog.New(slog.NewJSONHandler(&buf, nil)).Info("m", "s", v)
			return buf.String()
		},
		"slog text": func(v any) string {
			var buf bytes.Buffer
			slog.New(slog.NewTextHandler(&buf, nil)).Info("m", "s", v)
			return buf.String()
		},
		"zap.Any":     func(v any) string { return zapLine(zap.Any("s", v)) },
		"zap.Reflect": func(v any) string { return zapLine(zap.Reflect("s", v)) },
		"zap.Stringer": func(v any) string {
			return zapLine(zap.Stringer("s", v.(fmt.Stringer)))
		},
		"zap console": func(v any) string {
			var buf bytes.Buffer
			enc := zapcore.NewConsoleEncoder(zap.NewDevelopmentEncoderConfig())
			log := zap.New(zapcore.NewCore(enc, zapcore.AddSync(&buf), zap.DebugLevel))
			log.Info("m", zap.Any("s", v))
			return buf.String()
		},
	}
}

func zapLine(f zap.Field) string {
	var buf bytes.Buffer
	enc := zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig())
	log := zap.New(zapcore.NewCore(enc, zapcore.AddSync(&buf), zap.DebugLevel))
	log.Info("m", f)
	return buf.String()
}

func TestStringNeverPrintsValue(t *testing.T) {
	s := secret.String(clear)
	for name, p := range printers() {
		t.Run(name, func(t *testing.T) {
			out := p(s)
			if strings.Contains(out, clear) || strings.Contains(out, fmt.Sprintf("%x", clear)) {
				t.Fatalf("%s leaked the secret: %s", name, out)
			}
			if !strings.Contains(out, "***") && name != "%x" {
				t.Fatalf("%s does not show the mask: %s", name, out)
			}
		})
	}
	if s.Value() != clear {
		t.Fatalf("Value() = %q", s.Value())
	}
}

func TestStringExactForms(t *testing.T) {
	s := secret.String(clear)
	cases := []struct{ got, want string }{
		{fmt.Sprintf("%v", s), "***"},
		{fmt.Sprintf("%s", s), "***"},
		{fmt.Sprintf("%q", s), `"***"`},
		{fmt.Sprintf("%#v", s), `secret.String("***")`},
		{fmt.Sprintf("[%5s]", s), "[  ***]"},
		{s.String(), "***"},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
	b, _ := json.Marshal(s)
	if string(b) != `"***"` {
		t.Errorf("json = %s", b)
	}
	txt, _ := s.MarshalText()
	if string(txt) != "***" {
		t.Errorf("text = %s", txt)
	}
}

func TestStringUnsetPrintsEmpty(t *testing.T) {
	var s secret.String
	if s.String() != "" || fmt.Sprintf("%q", s) != `""` || s != "" {
		t.Fatalf("unset secret printed %q", s.String())
	}
}

func TestStringUnmarshalSetsValue(t *testing.T) {
	var v struct{ S secret.String }
	if err := json.Unmarshal([]byte(`{"S":"`+clear+`"}`), &v); err != nil {
		t.Fatal(err)
	}
	if v.S.Value() != clear {
		t.Fatalf("Value() = %q", v.S.Value())
	}
	var s secret.String
	if err := s.UnmarshalText([]byte(clear)); err != nil || s.Value() != clear {
		t.Fatalf("UnmarshalText: %v %q", err, s.Value())
	}
	err := json.Unmarshal([]byte(`{"S":12345678}`), &v)
	if err == nil || strings.Contains(err.Error(), "12345678") {
		t.Fatalf("non-string JSON: err = %v", err)
	}
}
