package authnhuma

import (
	"errors"
	"net/http"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	svcerrors "github.com/svckit/svc/modules/errors"
)

// fieldErrors turns Huma's error details into validation entries: loc from
// the location ("body.items[3].tags" gives body, items, 3, tags), msg from
// Huma's message with any quoted input dropped, and a machine-readable type.
// The value Huma echoes is never kept.
func fieldErrors(status int, errs []error) []svcerrors.FieldError {
	var out []svcerrors.FieldError
	for _, e := range errs {
		if e == nil {
			continue
		}
		var d huma.ErrorDetailer
		if !errors.As(e, &d) || d.ErrorDetail() == nil {
			// A resolver's own error: its text is the app's, not ours to send.
			out = append(out, svcerrors.FieldError{Loc: []string{}, Msg: "the request is invalid", Type: "invalid"})
			continue
		}
		det := d.ErrorDetail()
		loc := splitLocation(det.Location)
		if status == http.StatusBadRequest && det.Location == "body" {
			// The body did not parse: the parser's message may quote it.
			out = append(out, svcerrors.FieldError{Loc: loc, Msg: "the body could not be parsed", Type: "body_invalid"})
			continue
		}
		msg, typ := describe(det.Message)
		out = append(out, svcerrors.FieldError{Loc: loc, Msg: msg, Type: typ})
	}
	return out
}

func splitLocation(loc string) []string {
	loc = strings.NewReplacer("[", ".", "]", "").Replace(loc)
	out := []string{}
	for _, part := range strings.Split(loc, ".") {
		if part != "" {
			out = append(out, part)
		}
	}
	return out
}

// messageTypes maps the start of Huma's validation messages (package
// huma/validation) to an entry type. Longer prefixes come first.
var messageTypes = []struct{ prefix, typ string }{
	{"expected required property", "missing"},
	{"required ", "missing"}, // "required query parameter is missing"
	{"expected property", "missing"},
	{"unexpected property", "extra_forbidden"},
	{"unknown query parameter", "extra_forbidden"},
	{"expected string to match pattern", "string_pattern_mismatch"},
	{"expected string to be ", "format"},
	{"expected length >=", "too_short"},
	{"expected length <=", "too_long"},
	{"expected array length >=", "too_short"},
	{"expected array length <=", "too_long"},
	{"expected object with at least", "too_short"},
	{"expected object with at most", "too_long"},
	{"expected number", "number_range"},
	{"expected value to be one of", "enum"},
	{"expected array items to be unique", "unique_items"},
	{"expected value to", "schema_mismatch"},
	{"expected duration", "format"},
	{"expected boolean", "type_error"},
	{"expected integer", "type_error"},
	{"expected string", "type_error"},
	{"expected array", "type_error"},
	{"expected object", "type_error"},
	{"invalid ", "type_error"}, // "invalid integer", "invalid boolean" from parameter parsing
}

// describe returns the message to send and its type. Messages built with
// a parser's error ("expected string to be RFC 3986 uri: parse ...") lose
// that error, which may quote the input.
func describe(msg string) (string, string) {
	if i := strings.Index(msg, ": "); i >= 0 {
		msg = msg[:i]
	}
	if len(msg) > 200 {
		msg = strings.ToValidUTF8(msg[:200], "")
	}
	if msg == "" {
		return "the value is invalid", "invalid"
	}
	for _, m := range messageTypes {
		if strings.HasPrefix(msg, m.prefix) {
			if m.prefix == "expected number" && msg == "expected number" {
				return msg, "type_error"
			}
			return msg, m.typ
		}
	}
	return msg, "invalid"
}
