// Package oauthenv names the environment variables of the outbound token
// client (SVC_OAUTHCLIENT_*) and of its patterns
// (SVC_CLIENTCREDENTIALS_<NAME>_*, SVC_TOKENEXCHANGE_<NAME>_*): one list
// that modules/oauthclient reads and fxsvc checks names against, so that
// neither keeps a copy and oauthclient exports no list of its own.
package oauthenv

import (
	"strings"
	"time"

	"github.com/svckit/svc/secret"
)

// ClientPrefix is the prefix of the client's variables.
const ClientPrefix = "SVC_OAUTHCLIENT_"

// Client lists the client's variables under [ClientPrefix].
type Client struct {
	Issuer           string        `env:"ISSUER"`
	TokenEndpoint    string        `env:"TOKEN_ENDPOINT"`
	ClientID         string        `env:"CLIENT_ID"`
	ClientSecret     secret.String `env:"CLIENT_SECRET"`
	ClientSecretFile string        `env:"CLIENT_SECRET_FILE"`
	AssertionFile    string        `env:"ASSERTION_FILE"`
	Timeout          time.Duration `env:"TIMEOUT"`
	RefreshBefore    time.Duration `env:"REFRESH_BEFORE"`
	RetryInterval    time.Duration `env:"RETRY_INTERVAL"`
	AuthMethod       string        `env:"AUTH_METHOD"`
	Bulkhead         int           `env:"BULKHEAD"`
	Fetch            int           `env:"FETCH"`
	TLSCertFile      string        `env:"TLS_CERT_FILE"`
	TLSKeyFile       string        `env:"TLS_KEY_FILE"`
}

// Pattern lists a pattern's variables under [PatternPrefix].
type Pattern struct {
	Audience string `env:"AUDIENCE"`
	Resource string `env:"RESOURCE"`
	Scopes   string `env:"SCOPES"`
	Params   string `env:"PARAMS"` // extra token-request parameters, a URL query string
	// Resilience turns oauthclient.Resilience on with its defaults: on,
	// degraded (and its open breakers show on /readyz), or off.
	Resilience string `env:"RESILIENCE"`
	// ResilienceAttemptTimeout sets oauthclient.Resilience.AttemptTimeout
	// where code left it 0 (a duration, or seconds).
	ResilienceAttemptTimeout string `env:"RESILIENCE_ATTEMPT_TIMEOUT"`
}

// Exchange lists the variables only exchange patterns have, under
// [PatternPrefix]: the actor of RFC 8693 §2.1. ActorAssertionFile is read
// by modules/oauthclient; Actor names another pattern, which only fxsvc,
// holding every pattern of the app, can resolve.
type Exchange struct {
	Actor              string `env:"ACTOR"`                // a client-credentials pattern of the app
	ActorAssertionFile string `env:"ACTOR_ASSERTION_FILE"` // a workload identity token file
}

// PatternPrefix is the prefix of the variables of the pattern named name:
// SVC_TOKENEXCHANGE_<NAME>_ for an exchange (token exchange and
// on-behalf-of), else SVC_CLIENTCREDENTIALS_<NAME>_.
func PatternPrefix(name string, exchange bool) string {
	if exchange {
		return "SVC_TOKENEXCHANGE_" + envName(name) + "_"
	}
	return "SVC_CLIENTCREDENTIALS_" + envName(name) + "_"
}

// envName is the form a pattern name takes in environment variables:
// upper-cased, every character but letters and digits replaced by '_'.
func envName(name string) string {
	b := []byte(strings.ToUpper(name))
	for i, ch := range b {
		if (ch < 'A' || ch > 'Z') && (ch < '0' || ch > '9') {
			b[i] = '_'
		}
	}
	return string(b)
}
