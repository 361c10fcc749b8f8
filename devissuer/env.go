package devissuer

import (
	"strings"
)

// Env returns the settings that point a service at this issuer, as
// `export NAME=value` lines to paste into a shell: SVC_AUTHN_ISSUER and
// SVC_AUTHN_AUDIENCE for the tokens it verifies, and SVC_OAUTHCLIENT_ISSUER,
// _CLIENT_ID and _CLIENT_SECRET for the tokens it fetches. The secret is
// this issuer's development secret, printed on purpose.
func (i *Issuer) Env() string {
	var b strings.Builder
	for _, kv := range [][2]string{
		{"SVC_AUTHN_ISSUER", i.URL},
		{"SVC_AUTHN_AUDIENCE", i.Audience},
		{"SVC_OAUTHCLIENT_ISSUER", i.URL},
		{"SVC_OAUTHCLIENT_CLIENT_ID", i.ClientID},
		{"SVC_OAUTHCLIENT_CLIENT_SECRET", i.ClientSecret},
	} {
		b.WriteString("export " + kv[0] + "=" + shellQuote(kv[1]) + "\n")
	}
	return b.String()
}

// shellQuote quotes v for a POSIX shell when it holds anything beyond the
// characters URLs and identifiers use.
func shellQuote(v string) string {
	if v != "" && strings.Trim(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.:/@%+=,") == "" {
		return v
	}
	return "'" + strings.ReplaceAll(v, "'", `'\''`) + "'"
}
