package oauthclient_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/svckit/svc/modules/oauthclient"
)

func TestRedactFormHidesCredentialFields(t *testing.T) {
	form := url.Values{
		"grant_type":       {"urn:ietf:params:oauth:grant-type:token-exchange"},
		"client_id":        {"svc"},
		"client_secret":    {"SECRET1"},
		"client_assertion": {"SECRET2"},
		"assertion":        {"SECRET3"},
		"subject_token":    {"SECRET4", "SECRET5"},
		"scope":            {"a b"},
	}
	got := oauthclient.RedactForm(form)
	enc := got.Encode()
	if strings.Contains(enc, "SECRET") {
		t.Fatalf("redacted form %s", enc)
	}
	if got.Get("client_id") != "svc" || got.Get("scope") != "a b" || len(got["subject_token"]) != 2 || got.Get("assertion") != "***" {
		t.Fatalf("redacted form %v", got)
	}
	if form.Get("client_secret") != "SECRET1" {
		t.Fatal("RedactForm modified its input")
	}
	body := oauthclient.RedactBody(form.Encode())
	if strings.Contains(body, "SECRET") || !strings.Contains(body, "client_id=svc") {
		t.Fatalf("redacted body %s", body)
	}
	if oauthclient.RedactBody("%zz=SECRET") != "***" {
		t.Fatal("an unparsable body is not hidden whole")
	}
	for _, f := range []string{"client_secret", "CLIENT_ASSERTION", "assertion", "subject_token"} {
		if !oauthclient.IsSensitiveField(f) {
			t.Errorf("%s not sensitive", f)
		}
	}
}

func TestRedactHeader(t *testing.T) {
	h := http.Header{"Authorization": {"Basic SECRET"}, "Cookie": {"a=SECRET"}, "Accept": {"x"}}
	got := oauthclient.RedactHeader(h)
	if got.Get("Authorization") != "Basic ***" || got.Get("Cookie") != "***" || got.Get("Accept") != "x" {
		t.Fatalf("redacted %v", got)
	}
	if h.Get("Authorization") != "Basic SECRET" {
		t.Fatal("RedactHeader modified its input")
	}
}

func TestAccessTokenNeverPrintsItsValue(t *testing.T) {
	tok := oauthclient.AccessToken{Value: "SECRET-TOKEN", TokenType: "Bearer", ExpiresAt: time.Unix(0, 0)}
	var slogBuf, zapBuf bytes.Buffer
	slog.New(slog.NewJSONHandler(&slogBuf, nil)).Info("m", "t", tok)
	zap.New(zapcore.NewCore(zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig()), zapcore.AddSync(&zapBuf), zap.DebugLevel)).
		Info("m", zap.Any("t", tok), zap.Stringer("s", tok))
	js, _ := json.Marshal(tok)
	outs := []string{
		fmt.Sprint(tok), fmt.Sprintf("%v %+v %#v %s %q %x", tok, tok, tok, tok, tok, tok),
		fmt.Sprintf("%+v", struct{ T oauthclient.AccessToken }{tok}), string(js), slogBuf.String(), zapBuf.String(),
	}
	for _, o := range outs {
		if strings.Contains(o, "SECRET") {
			t.Fatalf("printed the token: %s", o)
		}
	}
	if tok.String() != "Bearer ***" {
		t.Fatal(tok.String())
	}
}
