package svcerrors

import (
	"encoding/json"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// The bodies are appended by hand rather than through encoding/json
// reflection: a refusal is on the hot path of every turned-away request,
// and the member set is fixed. Free-form values (extension members) still
// go through encoding/json.

func (r *Responses) appendProblem(b []byte, d Description, instance string) []byte {
	b = append(b, `{"type":`...)
	if d.Anchor == "" {
		b = append(b, `"about:blank"`...)
	} else {
		b = append(b, '"')
		if d.DocsURL != "" {
			b = appendEscaped(b, strings.TrimRight(d.DocsURL, "#"))
		} else {
			b = append(b, r.escDocsURL...)
		}
		b = append(b, '#')
		b = appendEscaped(b, d.Anchor)
		b = append(b, '"')
	}
	b = append(b, `,"title":`...)
	b = appendString(b, d.Title)
	b = append(b, `,"status":`...)
	b = strconv.AppendInt(b, int64(d.Status), 10)
	b = append(b, `,"detail":`...)
	b = appendString(b, d.detail())
	if instance != "" {
		b = append(b, `,"instance":`...)
		b = appendString(b, instance)
	}
	if d.RetryAfter > 0 {
		b = append(b, `,"retry_after":`...)
		b = appendSeconds(b, d.RetryAfter)
	}
	if d.Timeout > 0 {
		b = append(b, `,"timeout":`...)
		b = appendSeconds(b, d.Timeout)
	}
	if d.Errors != nil {
		b = append(b, `,"errors":`...)
		b = appendFieldErrors(b, d.Errors)
	}
	for _, m := range d.Extensions {
		if reservedMember(m.Name) {
			continue
		}
		v, err := json.Marshal(m.Value)
		if err != nil {
			continue
		}
		b = append(b, ',')
		b = appendString(b, m.Name)
		b = append(b, ':')
		b = append(b, v...)
	}
	return append(b, '}')
}

func reservedMember(name string) bool {
	switch name {
	case "type", "title", "status", "detail", "instance", "retry_after", "timeout", "errors":
		return true
	}
	return name == ""
}

func (r *Responses) appendTMF(b []byte, d Description) []byte {
	anchor := d.Anchor
	b = append(b, `{"code":"`...)
	b = append(b, r.escPrefix...)
	if anchor == "" {
		anchor = frameworkAnchor
		codeWord := strings.ToUpper(strings.ReplaceAll(http.StatusText(d.Status), " ", "-"))
		if codeWord == "" {
			codeWord = strconv.Itoa(d.Status)
		}
		b = appendEscaped(b, codeWord)
	} else {
		b = appendUpper(b, anchor)
	}
	b = append(b, `","reason":`...)
	b = appendString(b, d.Title)
	b = append(b, `,"message":"`...)
	b = appendEscaped(b, d.detail())
	for i, fe := range d.Errors {
		if i == 0 {
			b = append(b, ' ')
		} else {
			b = append(b, "; "...)
		}
		for j, l := range fe.Loc {
			if j > 0 {
				b = append(b, '.')
			}
			b = appendEscaped(b, l)
		}
		b = append(b, ": "...)
		b = appendEscaped(b, fe.Msg)
		b = append(b, " ("...)
		b = appendEscaped(b, fe.Type)
		b = append(b, ')')
	}
	b = append(b, '"')
	if len(r.refParts) > 0 && d.DocsURL != "" {
		// An app's own kind: its page, not svc's, in the template.
		ref := strings.ReplaceAll(r.tmfReference, "{errors_doc_url}", strings.TrimRight(d.DocsURL, "#"))
		b = append(b, `,"referenceError":`...)
		b = appendString(b, strings.ReplaceAll(ref, "{anchor}", anchor))
	} else if len(r.refParts) > 0 {
		b = append(b, `,"referenceError":"`...)
		for i, part := range r.refParts {
			if i > 0 {
				b = appendEscaped(b, anchor)
			}
			b = append(b, part...)
		}
		b = append(b, '"')
	}
	return append(b, `,"@type":"Error"}`...)
}

func appendFieldErrors(b []byte, errs []FieldError) []byte {
	b = append(b, '[')
	for i, fe := range errs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"loc":[`...)
		for j, l := range fe.Loc {
			if j > 0 {
				b = append(b, ',')
			}
			b = appendString(b, l)
		}
		b = append(b, `],"msg":`...)
		b = appendString(b, fe.Msg)
		b = append(b, `,"type":`...)
		b = appendString(b, fe.Type)
		b = append(b, '}')
	}
	return append(b, ']')
}

// appendSeconds writes d in seconds, fractional when it has to be.
func appendSeconds(b []byte, d time.Duration) []byte {
	return strconv.AppendFloat(b, d.Seconds(), 'f', -1, 64)
}

// retryAfterSeconds is the Retry-After value: whole seconds, rounded up.
func retryAfterSeconds(d time.Duration) string {
	return strconv.FormatInt(int64(math.Ceil(d.Seconds())), 10)
}

func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	b = appendEscaped(b, s)
	return append(b, '"')
}

const hexDigits = "0123456789abcdef"

// appendUpper appends s upper-cased and escaped. Anchors are ASCII that
// needs no escaping and take the loop; anything else strings.ToUpper.
func appendUpper(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= utf8.RuneSelf || !jsonSafe[c] {
			return appendEscaped(b, strings.ToUpper(s))
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' {
			c -= 'a' - 'A'
		}
		b = append(b, c)
	}
	return b
}

// jsonSafe marks the ASCII bytes a JSON string holds as they are
// (encoding/json's set, which escapes <, > and & too): one load per byte
// instead of six comparisons.
var jsonSafe = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

// appendEscaped escapes s for a JSON string the way encoding/json does:
// quotes, backslashes, control characters, <, >, & and U+2028/U+2029, with
// invalid UTF-8 replaced by U+FFFD.
func appendEscaped(b []byte, s string) []byte {
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if jsonSafe[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	return append(b, s[start:]...)
}
