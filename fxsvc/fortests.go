package fxsvc

import (
	"errors"
	"io"
	"net/http"

	"go.uber.org/fx"

	"github.com/svckit/svc/modules/oauthclient"
	"github.com/svckit/svc/secret"
)

// forTests marks an app started by a test kit (svctest.Start).
type forTests struct{}

// ForTests relaxes, for a test, what only a deployment needs: an
// [OAuthClient] whose identity (SVC_OAUTHCLIENT_ISSUER or _TOKEN_ENDPOINT,
// _CLIENT_ID) is not set starts anyway, and every token request it is then
// asked for fails with an error saying so, without any network call. A
// test that never calls out needs no SVC_OAUTHCLIENT_* variable; one that
// does configures the client (oauthclienttest.NewServer). Every other
// setting is checked as in production. svctest.Start adds it.
//
// logTo, when not nil, takes the log lines the kit's components would
// write to standard error when the app provides no *zap.Logger of its
// own (svctest sends them to t.Log, shown when the test fails); an app's
// own logger still wins.
func ForTests(logTo io.Writer) fx.Option {
	if logTo == nil {
		return fx.Supply(&forTests{})
	}
	return fx.Options(fx.Supply(&forTests{}), supplyLogFallback(logTo))
}

// ErrOutboundNotConfigured is what the stand-in client of a test app
// ([ForTests]) fails every token request with.
var ErrOutboundNotConfigured = errors.New("fxsvc: this test app's OAuthClient has no SVC_OAUTHCLIENT_* settings: configure it (e.g. oauthclienttest.NewServer(t).ClientOptions()) to call out")

// unconfiguredClient is the stand-in for a test app's OAuthClient whose
// identity is not set: err names the setting that was missing.
func unconfiguredClient(opts []oauthclient.Option, err error) (*oauthclient.Client, error) {
	var ce *oauthclient.ConfigError
	if !errors.As(err, &ce) || (ce.Setting != "SVC_OAUTHCLIENT_ISSUER" && ce.Setting != "SVC_OAUTHCLIENT_CLIENT_ID") {
		return nil, err
	}
	standIn := append(append([]oauthclient.Option(nil), opts...),
		oauthclient.TokenEndpoint("http://127.0.0.1:9/unconfigured"),
		oauthclient.ClientID("unconfigured"),
		oauthclient.ClientSecret(secret.String("unconfigured")),
		oauthclient.AllowInsecureHTTP(),
		oauthclient.HTTPClient(&http.Client{Transport: refuseTransport{}}),
	)
	return oauthclient.New(standIn...)
}

type refuseTransport struct{}

func (refuseTransport) RoundTrip(*http.Request) (*http.Response, error) {
	return nil, ErrOutboundNotConfigured
}
