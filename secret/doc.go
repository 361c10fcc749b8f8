// Package secret holds values that must never be printed: client secrets,
// passwords, header values, endpoint URLs with embedded credentials.
//
// A [String] prints as "***" through every path a Go program uses to show a
// value: fmt verbs (%v, %+v, %#v, %s, %q, ...), fmt.Stringer, encoding/json,
// encoding.TextMarshaler, log/slog (LogValuer) and zap (zap.Any and
// zap.Stringer take the Stringer path; zap.Reflect takes the JSON path). A
// [URL] prints with its user information, query and fragment replaced by
// "***" and the rest shown, so an operator can still read which host a
// service talks to.
//
// The real value is read back only by calling Value, so every place that
// handles the secret in clear is an explicit, greppable call.
//
// The zero value prints as the empty string: that tells an operator the
// setting is unset without telling anything about a set one.
//
// Unmarshalling (JSON, text, and therefore caarlos0/env) sets the real
// value. Marshalling writes the mask, so a marshal/unmarshal round trip does
// not preserve a secret, by design.
package secret
