package authn

import (
	"errors"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"go.opentelemetry.io/otel/attribute"
	"go.uber.org/zap"

	"github.com/svckit/svc/modules/authn/bearer"
)

// An audience refusal is the hardest to diagnose from the 401 alone
// (Keycloak sends `aud: account` unless told otherwise), so the gate writes
// the token's aud beside the audience trusted: on the security record,
// on its span event, and on a log line of its own once a minute per
// issuer. Never in the answer: the caller is not told what a token held.

// The attributes of an audience refusal's record and log line.
const (
	tokenAudienceAttr    = "svc.authn.token_audience"
	expectedAudienceAttr = "svc.authn.expected_audience"
)

// Bounds of the token's aud as written: a signed token can still hold a
// long list of long values, and every one is the issuer's text.
const (
	maxAudienceValues = 4
	maxAudienceLen    = 64 // characters of each value
)

// audienceCause keys the rate limit of the audience log line; no refusal
// word has this name.
const audienceCause = "audience-cause"

// audienceDiagnosis is what an audience refusal records: the token's aud,
// bounded and cleaned, and the audience trusted ("" when the verifier did
// not say).
type audienceDiagnosis struct {
	got  []string
	want string
}

// diagnoseAudience returns the diagnosis of te when it is an audience
// refusal: from the verifier's bearer.AudienceError, else, for a verifier
// of its own, from the claims of the token it names.
func diagnoseAudience(te *bearer.TokenError) *audienceDiagnosis {
	if te.Reason != bearer.ReasonAudience {
		return nil
	}
	var ae *bearer.AudienceError
	switch {
	case errors.As(te, &ae):
		return &audienceDiagnosis{got: boundedAudience(ae.Got), want: ae.Want}
	case te.Signed && te.Principal.Claims != nil:
		return &audienceDiagnosis{got: boundedAudience(te.Principal.Claims.Audience)}
	}
	return nil
}

// boundedAudience is at most maxAudienceValues values of aud, each cut to
// maxAudienceLen characters (with "…") and stripped of control and format
// characters, and "(+N more)" for the rest.
func boundedAudience(aud []string) []string {
	n := min(len(aud), maxAudienceValues)
	out := make([]string, 0, n+1)
	for _, a := range aud[:n] {
		out = append(out, cleanAudience(a))
	}
	if len(aud) > n {
		out = append(out, "(+"+strconv.Itoa(len(aud)-n)+" more)")
	}
	return out
}

func cleanAudience(s string) string {
	var b strings.Builder
	n := 0
	for _, r := range s {
		if r == utf8.RuneError || unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == 0x2028 || r == 0x2029 {
			continue
		}
		if n == maxAudienceLen {
			b.WriteString("…")
			break
		}
		b.WriteRune(r)
		n++
	}
	return b.String()
}

// fields are the diagnosis on a security record.
func (d *audienceDiagnosis) fields() []zap.Field {
	f := []zap.Field{zap.Strings(tokenAudienceAttr, d.got)}
	if d.want != "" {
		f = append(f, zap.String(expectedAudienceAttr, d.want))
	}
	return f
}

// attributes are the diagnosis on the refusal's span event.
func (d *audienceDiagnosis) attributes() []attribute.KeyValue {
	a := []attribute.KeyValue{attribute.StringSlice(tokenAudienceAttr, d.got)}
	if d.want != "" {
		a = append(a, attribute.String(expectedAudienceAttr, d.want))
	}
	return a
}

// logAudience writes ref's audience diagnosis on the gate's logger, once
// a minute per issuer (the security record is per address): the line an
// operator reads to fix the provider's or the service's setting.
func (g *Gate) logAudience(ref *Refusal, issuer string) {
	d := ref.audience
	if d == nil {
		return
	}
	write, suppressed := g.records.allow(audienceCause, issuer)
	if !write {
		return
	}
	fields := append(d.fields(), zap.Int("suppressed", suppressed))
	if issuer != "" {
		fields = append(fields, zap.String(issuerLabelAttr, issuer))
	}
	g.log.Warn("authn: a token was refused on audience: its aud lacks the audience this service trusts; "+
		"have the provider put it in aud (Keycloak: an audience mapper on the client's scope) or fix the audience given to the verifier (SVC_AUTHN_AUDIENCE)",
		fields...)
}
