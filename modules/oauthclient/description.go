package oauthclient

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxDescription bounds the server's error_description kept in an error and
// a log line, in bytes: enough for "DPoP proof is missing" or "Invalid
// client or Invalid client credentials", not for a page a hostile server
// writes into every log line.
const maxDescription = 200

// redacted replaces a credential the request sent wherever the server's
// description repeats it.
const redacted = "***"

// credentialFields are the form fields of a token request that carry a
// credential: the client's secret or assertion, the caller's token and the
// actor's.
var credentialFields = []string{"client_secret", "client_assertion", "subject_token", "actor_token", "assertion"}

// sentCredentials lists the credentials a token request carried, in the
// form and in client_secret_basic's header, each also as form-encoded, so
// that a description echoing any of them can be scrubbed.
func sentCredentials(form url.Values, header http.Header) []string {
	var out []string
	add := func(v string) {
		if v == "" {
			return
		}
		out = append(out, v)
		if e := url.QueryEscape(v); e != v {
			out = append(out, e)
		}
	}
	for _, f := range credentialFields {
		for _, v := range form[f] {
			add(v)
		}
	}
	if _, pass, ok := (&http.Request{Header: header}).BasicAuth(); ok {
		// RFC 6749 §2.3.1: the secret is form-encoded inside Basic.
		add(pass)
		if raw, err := url.QueryUnescape(pass); err == nil {
			add(raw)
		}
	}
	return out
}

// refusalBody reads the OAuth error code and description of a refusal
// (RFC 6749 §5.2). A code outside the RFC 6749 character set or over 64
// characters is dropped. The description is server text: it is kept only
// as [cleanDescription] leaves it.
func refusalBody(body []byte, sent []string) (code, description string) {
	var e struct {
		Error       string `json:"error"`
		Description string `json:"error_description"`
	}
	if json.Unmarshal(body, &e) != nil {
		return "", ""
	}
	return validCode(e.Error), cleanDescription(e.Description, sent)
}

func validCode(code string) string {
	if code == "" || len(code) > 64 {
		return ""
	}
	for i := 0; i < len(code); i++ {
		ch := code[i]
		if ch < 0x20 || ch > 0x7e || ch == '"' || ch == '\\' {
			return ""
		}
	}
	return code
}

// cleanDescription makes a server's error_description fit for an error
// and a log line: every credential in sent is replaced by ***, control
// and format characters (escapes, bidirectional overrides) and invalid
// UTF-8 are removed, runs of white space (newlines, tabs) are folded into
// one space, and what is left
// is cut to maxDescription bytes on a character boundary, with "…" when
// cut. Credentials are scrubbed before the cut, so a cut cannot leave a
// prefix of one behind.
func cleanDescription(raw string, sent []string) string {
	s := scrub(raw, sent)
	var b strings.Builder
	space := false
	for _, r := range s {
		switch {
		case unicode.IsSpace(r): // a newline or tab parts words, as a space
			space = b.Len() > 0
			continue
		case r == utf8.RuneError, unicode.IsControl(r), unicode.Is(unicode.Cf, r):
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	// Removing characters can join the halves of a credential the server
	// split with them.
	s = scrub(b.String(), sent)
	if len(s) <= maxDescription {
		return s
	}
	cut := maxDescription
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func scrub(s string, sent []string) string {
	for _, v := range sent {
		s = strings.ReplaceAll(s, v, redacted)
	}
	return s
}
