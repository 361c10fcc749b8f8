package authn_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/bearer"
	svcerrors "github.com/svckit/svc/modules/errors"
)

// entraClaims is the claims request of Microsoft's claims-challenge
// documentation (an authentication context, "c1").
const entraClaims = `{"access_token":{"acrs":{"essential":true,"value":"c1"}}}`

func claimsHook(claims string) func(context.Context, bearer.Principal, *http.Request) (bearer.Principal, error) {
	return func(_ context.Context, p bearer.Principal, _ *http.Request) (bearer.Principal, error) {
		if p.Subject == "root" {
			return p, nil
		}
		return bearer.Principal{}, authn.ClaimsChallenge([]byte(claims))
	}
}

// The challenge is 401 with error="insufficient_claims" and the claims in
// standard base64, as Microsoft's documentation shows and MSAL reads them;
// the body has its own type; a challenge a hook hands every request is
// never written (-race).
func TestClaimsChallengeHeaderAndBody(t *testing.T) {
	for name, c := range map[string]struct {
		opts []authn.Option
		want string
	}{
		"plain": {nil, `Bearer error="insufficient_claims", claims="eyJhY2Nlc3NfdG9rZW4iOnsiYWNycyI6eyJlc3NlbnRpYWwiOnRydWUsInZhbHVlIjoiYzEifX19"`},
		"with Resource": {[]authn.Option{authn.Resource("https://api.example.com/")},
			`Bearer error="insufficient_claims", claims="eyJhY2Nlc3NfdG9rZW4iOnsiYWNycyI6eyJlc3NlbnRpYWwiOnRydWUsInZhbHVlIjoiYzEifX19", resource_metadata="https://api.example.com/.well-known/oauth-protected-resource"`},
		// Microsoft's documented form, through the common endpoint.
		"with the authority, common": {[]authn.Option{authn.ClaimsChallengeAuthority("", "https://login.microsoftonline.com/common/oauth2/authorize")},
			`Bearer realm="", authorization_uri="https://login.microsoftonline.com/common/oauth2/authorize", error="insufficient_claims", claims="eyJhY2Nlc3NfdG9rZW4iOnsiYWNycyI6eyJlc3NlbnRpYWwiOnRydWUsInZhbHVlIjoiYzEifX19"`},
		"with the authority and Resource": {[]authn.Option{authn.Resource("https://api.example.com/"),
			authn.ClaimsChallengeAuthority("contoso.onmicrosoft.com", "https://login.microsoftonline.com/contoso.onmicrosoft.com/oauth2/v2.0/authorize?p=x")},
			`Bearer realm="contoso.onmicrosoft.com", authorization_uri="https://login.microsoftonline.com/contoso.onmicrosoft.com/oauth2/v2.0/authorize?p=x", error="insufficient_claims", claims="eyJhY2Nlc3NfdG9rZW4iOnsiYWNycyI6eyJlc3NlbnRpYWwiOnRydWUsInZhbHVlIjoiYzEifX19", resource_metadata="https://api.example.com/.well-known/oauth-protected-resource"`},
		// A quote or backslash is escaped: the header stays one challenge.
		"a realm with a quote and a backslash": {[]authn.Option{authn.ClaimsChallengeAuthority(`te"n\ant, error="none"`, "https://login.example.com/authorize")},
			`Bearer realm="te\"n\\ant, error=\"none\"", authorization_uri="https://login.example.com/authorize", error="insufficient_claims", claims="eyJhY2Nlc3NfdG9rZW4iOnsiYWNycyI6eyJlc3NlbnRpYWwiOnRydWUsInZhbHVlIjoiYzEifX19"`},
	} {
		srv := gateServer(t, svcerrors.New(), exampleRouter(), newCounting(), append(c.opts, authn.Check(claimsHook(" "+entraClaims+"\n")))...)
		errs := make(chan string, 4)
		for range 4 {
			go func() {
				got := do(t, srv, "GET", "/me", bearerHeader("alice-token"), "")
				switch {
				case got.status != 401 || got.header.Get("WWW-Authenticate") != c.want:
					errs <- fmt.Sprintf("%d %q", got.status, got.header.Get("WWW-Authenticate"))
				case got.json["type"] != docs+"insufficient-claims" || got.json["title"] != "Insufficient claims" ||
					got.header.Get("Content-Type") != "application/problem+json":
					errs <- got.body
				case strings.Contains(got.body, "alice-token"):
					errs <- "the token was echoed"
				default:
					errs <- ""
				}
			}()
		}
		for range 4 {
			if e := <-errs; e != "" {
				t.Errorf("%s: %s", name, e)
			}
		}
	}
	if got := base64.StdEncoding.EncodeToString([]byte(entraClaims)); got != "eyJhY2Nlc3NfdG9rZW4iOnsiYWNycyI6eyJlc3NlbnRpYWwiOnRydWUsInZhbHVlIjoiYzEifX19" {
		t.Fatalf("the expected header is not Microsoft's: %s", got)
	}
	// A caller the hook admits is served.
	srv := gateServer(t, nil, exampleRouter(), newFake(), authn.Check(claimsHook(entraClaims)))
	if got := do(t, srv, "GET", "/me", bearerHeader("admin-token"), ""); got.status != 200 {
		t.Fatalf("admitted caller: %d", got.status)
	}
}

// A claims challenge is recorded and counted as a refused attempt under
// its own error.type.
func TestClaimsChallengeRecordAndMetric(t *testing.T) {
	m := installMetrics(t)
	o := observedGate(t, exampleRouter(), newFake(), authn.Check(claimsHook(entraClaims)))
	do(t, o.srv, "GET", "/me", bearerHeader("alice-token"), "")
	recs := o.security()
	if len(recs) != 1 || recs[0].Message != "GET /me 401 insufficient-claims" || recs[0].ContextMap()["error.type"] != "insufficient-claims" {
		t.Fatalf("%v", recs)
	}
	s := func(k, v string) attribute.KeyValue { return attribute.String(k, v) }
	if n := m.sum(t, "svc.authentication.attempts", s("svc.outcome", "refused"), s("error.type", "insufficient-claims"), s("http.route", "/me")); n != 1 {
		t.Errorf("refused attempts %d, want 1", n)
	}
}

// Claims no client could read are refused where the hook builds the
// challenge: the request answers 500, the log names the problem (never the
// claims), and no challenge is sent.
func TestHostileClaimsAreNeverSent(t *testing.T) {
	cases := map[string]struct{ claims, want string }{
		"not JSON":          {`{"acrs":{"value":`, "not one JSON object"},
		"an array":          {`[{"access_token":{}}]`, "not one JSON object"},
		"a string":          {`"c1"`, "not one JSON object"},
		"two objects":       {`{} {}`, "not one JSON object"},
		"empty":             {``, "not one JSON object"},
		"huge":              {`{"x":"` + strings.Repeat("A", 4096) + `"}`, "over the 2048"},
		"a header breaking": {"{\"x\":\"a\r\nSet-Cookie: s=1\"}", "not one JSON object"},
	}
	for name, c := range cases {
		err := authn.ClaimsChallenge([]byte(c.claims))
		if err == nil || !strings.Contains(err.Error(), c.want) || (len(c.claims) > 4 && strings.Contains(err.Error(), c.claims)) {
			t.Errorf("%s: %v", name, err)
			continue
		}
		core, logs := observer.New(zapcore.DebugLevel)
		g, gerr := authn.New(newFake(), authn.Check(claimsHook(c.claims)))
		if gerr != nil {
			t.Fatal(gerr)
		}
		g.SetLogger(zap.New(core))
		h, herr := g.Handler(exampleRouter())
		if herr != nil {
			t.Fatal(herr)
		}
		got := do(t, httptestServer(t, h), "GET", "/me", bearerHeader("alice-token"), "")
		if got.status != 500 || got.header.Get("WWW-Authenticate") != "" || got.header.Get("Set-Cookie") != "" {
			t.Errorf("%s: %d %v", name, got.status, got.header)
		}
		if e := logs.FilterMessage("authn: request could not be authenticated").All(); len(e) != 1 ||
			!strings.Contains(fmt.Sprint(e[0].ContextMap()["error"]), "authn.ClaimsChallenge") {
			t.Errorf("%s: logged %v", name, logs.All())
		}
	}
}

// The authority of a claims challenge is checked when the gate is built:
// what would break the header, or send the user to an unsafe or
// credential-carrying URL, is refused naming the option. Other refusals
// carry no realm.
func TestClaimsChallengeAuthoritySettings(t *testing.T) {
	for name, c := range map[string]struct{ realm, uri, want string }{
		"CR LF in the realm": {"a\r\nSet-Cookie: s=1", "https://login.example.com/authorize", "realm holds a control character"},
		"non-ASCII realm":    {"tenañt", "https://login.example.com/authorize", "realm holds a control character or a byte outside ASCII"},
		"http":               {"", "http://login.example.com/authorize", "must be https"},
		"user information":   {"", "https://user:pw@login.example.com/authorize", "carries user information"},
		"a fragment":         {"", "https://login.example.com/authorize#x", "has a fragment"},
		"relative":           {"", "/authorize", "authn.ClaimsChallengeAuthority: the authorization URI"},
		"CR LF in the URI":   {"", "https://login.example.com/a\r\nX: y", "authorization URI holds a control character"},
		"empty URI":          {"", "", "authn.ClaimsChallengeAuthority: the authorization URI"},
	} {
		_, err := authn.New(newFake(), authn.ClaimsChallengeAuthority(c.realm, c.uri))
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "pw@") {
			t.Errorf("%s: %v", name, err)
		}
	}
	srv := gateServer(t, nil, exampleRouter(), newFake(), authn.ClaimsChallengeAuthority("t", "http://127.0.0.1:9/authorize"))
	if got := do(t, srv, "GET", "/me", bearerHeader("expired-token"), ""); got.status != 401 || strings.Contains(got.header.Get("WWW-Authenticate"), "realm") {
		t.Fatalf("a rejected token's challenge: %d %q", got.status, got.header.Get("WWW-Authenticate"))
	}
}
