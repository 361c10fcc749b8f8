package oauthclient_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"unicode"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/svckit/svc/modules/oauthclient"
	"github.com/svckit/svc/modules/oauthclient/oauthclienttest"
)

// Regression: issue 34 item 7. A token request the server refused with an
// error_description (Keycloak's "DPoP proof is missing") surfaced as a
// generic "check the pattern's audience, resource and scopes", the
// server's words dropped. The error and the log line now carry the code
// and the description, bounded, without control characters and without
// any credential the request sent.
func TestRefusalCarriesTheServersDescription(t *testing.T) {
	const caller = "caller-token-eyJhbGciOi.payload.sig"
	hostile := "bad\x1b[31m\r\nX-Injected: 1\u202e\u0000 " + strings.Repeat("A", 10<<10)
	for _, tc := range []struct {
		name        string
		fault       oauthclienttest.Fault
		exchange    bool
		code        string
		description string // the Description wanted; "" for the hostile cases, checked below
		absent      []string
	}{
		{"keycloak without a DPoP proof", oauthclienttest.Refuse(400, "invalid_request", "DPoP proof is missing"), false,
			"invalid_request", "DPoP proof is missing", []string{"audience, resource and scopes"}},
		{"keycloak refusing an actor", oauthclienttest.Refuse(400, "invalid_request", "actor_token not supported"), true,
			"invalid_request", "actor_token not supported", nil},
		{"echoed caller token", oauthclienttest.Refuse(400, "invalid_grant", "cannot exchange "+caller), true,
			"invalid_grant", "cannot exchange ***", []string{caller, "eyJhbGciOi"}},
		{"echoed client secret", oauthclienttest.Refuse(401, "invalid_client", "wrong secret "+oauthclienttest.ClientSecret), false,
			"invalid_client", "wrong secret ***", []string{oauthclienttest.ClientSecret}},
		// Scrubbed before the cut: a secret straddling 200 bytes leaves no
		// prefix behind.
		{"secret across the bound", oauthclienttest.Refuse(401, "invalid_client", strings.Repeat("x", 195)+oauthclienttest.ClientSecret), false,
			"invalid_client", strings.Repeat("x", 195) + "***", []string{"test-"}},
		{"hostile description", oauthclienttest.Refuse(400, "invalid_request", hostile), false,
			"invalid_request", "", []string{"\x1b", "\r", "\n", "\u202e", "\x00", strings.Repeat("A", 300)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := oauthclienttest.NewServer(t)
			core, logs := observer.New(zap.WarnLevel)
			c, err := oauthclient.New(append(srv.ClientOptions(), oauthclient.Logger(zap.New(core)))...)
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Open(context.Background()); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = c.Close(context.Background()) })
			srv.Fail(tc.fault)
			if tc.exchange {
				p, perr := oauthclient.TokenExchange("ledger", oauthclient.WithoutEnv(), oauthclient.WithClient(c), oauthclient.Audience("ledger"))
				if perr != nil {
					t.Fatal(perr)
				}
				_, err = p.TokenFor(context.Background(), caller)
			} else {
				p, perr := oauthclient.ClientCredentials("billing", oauthclient.WithClient(c))
				if perr != nil {
					t.Fatal(perr)
				}
				_, err = p.Token(context.Background())
			}

			var code, desc string
			var tr *oauthclient.TokenRefusedError
			var cr *oauthclient.ClientRejectedError
			switch {
			case errors.As(err, &tr):
				code, desc = tr.Code, tr.Description
			case errors.As(err, &cr):
				code, desc = cr.Code, cr.Description
			default:
				t.Fatalf("err = %v, want a refusal", err)
			}
			if code != tc.code {
				t.Fatalf("code %q, want %q", code, tc.code)
			}
			if tc.description != "" && desc != tc.description {
				t.Fatalf("description %q, want %q", desc, tc.description)
			}
			if len(desc) > 200+len("…") || strings.IndexFunc(desc, func(r rune) bool { return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) }) >= 0 {
				t.Fatalf("description not bounded or not clean: %q", desc)
			}
			if tc.description == "" && !strings.HasPrefix(desc, "bad[31m X-Injected: 1 AAAA") {
				t.Fatalf("hostile description %q: want its printable text kept", desc)
			}
			if msg := err.Error(); !strings.Contains(msg, code) || !strings.Contains(msg, `it says "`+desc+`"`) || len(msg) > 1<<10 {
				t.Fatalf("error %q lacks the code %q and description %q, or is unbounded", msg, code, desc)
			}

			lines := logs.FilterMessage("svc.oauthclient token fetch failed").All()
			if len(lines) != 1 {
				t.Fatalf("%d failure lines, want 1: %v", len(lines), logs.All())
			}
			fields := lines[0].ContextMap()
			if fields["svc.oauthclient.error"] != code || fields["svc.oauthclient.error_description"] != desc {
				t.Fatalf("log line %v: want the code %q and description %q", fields, code, desc)
			}
			for _, a := range tc.absent {
				for where, text := range map[string]string{"error": err.Error(), "log": lines[0].Message + " " + strings.Join(stringsOf(fields), " ")} {
					if strings.Contains(text, a) {
						t.Errorf("%s holds %q: %s", where, a, text)
					}
				}
			}
		})
	}
}

func stringsOf(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for _, v := range m {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out
}
