package otlpconf

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// CheckServiceName refuses a service.name that would garble what shows it:
// a control character (a newline splits a log line, an escape sequence
// rewrites a terminal) or bytes that are not UTF-8. The reason never
// quotes the name.
func CheckServiceName(name string) *Fault {
	switch {
	case !utf8.ValidString(name):
		return &Fault{Field: "service_name", Reason: "is not valid UTF-8"}
	case strings.ContainsFunc(name, unicode.IsControl):
		return &Fault{Field: "service_name", Reason: "holds a control character (a newline, tab, escape, ...)"}
	}
	return nil
}
