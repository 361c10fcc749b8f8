package oauthclient

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/svckit/svc/secret"
)

// sensitiveFields are the token-request form fields that carry credentials
// or someone else's token.
var sensitiveFields = map[string]bool{
	"client_secret":    true,
	"client_assertion": true,
	"assertion":        true,
	"subject_token":    true,
	"actor_token":      true,
	"refresh_token":    true,
	"access_token":     true,
	"password":         true,
	"code":             true,
	"code_verifier":    true,
}

// IsSensitiveField reports whether a token-request or token-response form
// field must be hidden from logs and traces: client_secret,
// client_assertion, assertion and subject_token, and also actor_token,
// refresh_token, access_token, password, code and code_verifier.
func IsSensitiveField(name string) bool { return sensitiveFields[strings.ToLower(name)] }

// RedactForm returns a copy of a token-request form with every sensitive
// field's values replaced by "***", for logging or tracing a request.
func RedactForm(form url.Values) url.Values {
	out := make(url.Values, len(form))
	for k, vs := range form {
		if IsSensitiveField(k) {
			masked := make([]string, len(vs))
			for i := range masked {
				masked[i] = secret.Mask
			}
			out[k] = masked
			continue
		}
		out[k] = append([]string(nil), vs...)
	}
	return out
}

// RedactBody redacts a form-encoded request body. A body that does not
// parse as a form is hidden whole.
func RedactBody(body string) string {
	form, err := url.ParseQuery(body)
	if err != nil {
		return secret.Mask
	}
	return RedactForm(form).Encode()
}

// RedactHeader returns a copy of h with Authorization, Proxy-Authorization,
// Cookie and Set-Cookie replaced by "***", keeping the auth scheme (Basic,
// Bearer) visible.
func RedactHeader(h http.Header) http.Header {
	out := h.Clone()
	for _, k := range []string{"Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie"} {
		vs := out.Values(k)
		if len(vs) == 0 {
			continue
		}
		masked := make([]string, len(vs))
		for i, v := range vs {
			masked[i] = secret.Mask
			if scheme, _, ok := strings.Cut(v, " "); ok && k != "Cookie" && k != "Set-Cookie" {
				masked[i] = scheme + " " + secret.Mask
			}
		}
		out[http.CanonicalHeaderKey(k)] = masked
	}
	return out
}
