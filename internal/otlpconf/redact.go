package otlpconf

import (
	"net/url"
	"slices"
	"strings"

	"github.com/svckit/svc/secret"
)

// Secrets are the values of an exporter config that must not reach a log:
// transport errors quote URLs and sometimes headers, and a collector may
// echo a header or credential back in its error body.
type Secrets struct {
	Basic
	Headers map[string]secret.String
}

// redactedError carries an exporter error with every secret replaced by ***.
type redactedError struct {
	msg string
	err error // nil when redaction changed the message: the cause would leak
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// Redact returns err with every secret of s replaced by ***: the endpoint's
// user information, user name and password, its query and fragment, the
// header values, the Basic password, and the Authorization header whole
// and as its base64 part.
// Values shorter than three bytes are left alone: replacing them would
// garble the message without hiding anything. When a secret was replaced
// the result no longer unwraps to err, whose text would leak it.
func Redact(err error, s Secrets) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	var secrets []string
	if u, perr := url.Parse(s.Endpoint.Value()); perr == nil {
		if u.User != nil {
			secrets = append(secrets, u.User.String(), u.User.Username())
			if p, ok := u.User.Password(); ok {
				secrets = append(secrets, p)
			}
		}
		// A query or fragment may carry a key, as secret.URL assumes.
		secrets = append(secrets, u.RawQuery, u.EscapedFragment())
	}
	for _, v := range s.Headers {
		secrets = append(secrets, v.Value())
	}
	auth := s.AuthorizationHeader().Value()
	// The header first, then its base64 part alone: an error may quote either.
	secrets = append(secrets, s.Password.Value(), auth, strings.TrimPrefix(auth, "Basic "))
	// Longest first: a shorter secret found inside a longer one (a header
	// value inside the base64 credential) would otherwise split it, and
	// the longer one's remaining pieces would no longer match.
	slices.SortStableFunc(secrets, func(a, b string) int { return len(b) - len(a) })
	for _, v := range secrets {
		if len(v) >= 3 {
			msg = strings.ReplaceAll(msg, v, "***")
		}
	}
	if msg != err.Error() {
		return &redactedError{msg: msg}
	}
	return &redactedError{msg: msg, err: err}
}
