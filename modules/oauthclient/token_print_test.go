package oauthclient_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/svckit/svc/modules/oauthclient"
)

// Every way a service prints a value shows the token type and never the
// token itself.
func TestAccessTokenNeverPrintsItsValue(t *testing.T) {
	const value = "eyJ-the-token-itself"
	tok := oauthclient.AccessToken{Value: value, TokenType: "Bearer", ExpiresAt: time.Unix(1700000000, 0)}
	for name, print := range map[string]func(any) string{
		"%v":  func(v any) string { return fmt.Sprintf("%v", v) },
		"%+v": func(v any) string { return fmt.Sprintf("%+v", v) },
		"%#v": func(v any) string { return fmt.Sprintf("%#v", v) },
		"%s":  func(v any) string { return fmt.Sprintf("%s", v) },
		"%q":  func(v any) string { return fmt.Sprintf("%q", v) },
		"%x":  func(v any) string { return fmt.Sprintf("%x", v) },
		"%d":  func(v any) string { return fmt.Sprintf("%d", v) },
		"struct %+v": func(v any) string {
			return fmt.Sprintf("%+v", struct{ T any }{v})
		},
		"json": func(v any) string {
			b, err := json.Marshal(v)
			if err != nil {
				return "ERR " + err.Error()
			}
			return string(b)
		},
		"slog json": func(v any) string {
			var buf bytes.Buffer
			slog.New(slog.NewJSONHandler(&buf, nil)).Info("m", "t", v)
			return buf.String()
		},
		"slog text": func(v any) string {
			var buf bytes.Buffer
			slog.New(slog.NewTextHandler(&buf, nil)).Info("m", "t", v)
			return buf.String()
		},
		"zap.Any": func(v any) string {
			var buf bytes.Buffer
			enc := zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig())
			zap.New(zapcore.NewCore(enc, zapcore.AddSync(&buf), zap.DebugLevel)).Info("m", zap.Any("t", v))
			return buf.String()
		},
	} {
		out := print(tok)
		if strings.Contains(out, value) || strings.Contains(out, fmt.Sprintf("%x", value)) {
			t.Errorf("%s prints the token: %s", name, out)
		}
		if name != "%x" && !strings.Contains(out, "Bearer") {
			t.Errorf("%s hides the token type too: %s", name, out)
		}
	}
}
