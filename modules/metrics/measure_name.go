package metrics

import (
	"reflect"
	"runtime"
	"strings"
)

// maxBaseName keeps <name>.duration within OpenTelemetry's 255-character
// instrument name limit.
const maxBaseName = 255 - len(".duration")

// funcName is the base name a Wrap* function gives fn: its package path
// and function name from runtime.FuncForPC, lowercased and dotted.
// "github.com/acme/shop/db.(*Repo).Get" becomes
// "github.com.acme.shop.db.repo.get"; a closure keeps its ".func1" suffix.
// Characters an instrument name may not hold become "_"; an overlong name
// keeps its most specific tail. A value that is not a func gives
// "anonymous".
func funcName(fn any) string {
	v := reflect.ValueOf(fn)
	if v.Kind() != reflect.Func || v.IsNil() {
		return "anonymous"
	}
	f := runtime.FuncForPC(v.Pointer())
	if f == nil {
		return "anonymous"
	}
	return dotted(f.Name())
}

func dotted(raw string) string {
	s := strings.TrimSuffix(raw, "-fm") // method values
	s = stripBrackets(s)                // generic instantiations "[...]"
	s = strings.NewReplacer("(*", "", "(", "", ")", "", "*", "", "/", ".").Replace(s)
	s = strings.ToLower(s)
	var b strings.Builder
	lastDot := true
	for _, r := range s {
		switch {
		case r == '.':
			if !lastDot {
				b.WriteByte('.')
			}
			lastDot = true
			continue
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
		lastDot = false
	}
	out := strings.Trim(b.String(), ".")
	// Room for the "fn." a name starting with a non-letter gets below.
	const limit = maxBaseName - len("fn.")
	for len(out) > limit {
		i := strings.IndexByte(out, '.')
		if i < 0 {
			out = out[len(out)-limit:]
			break
		}
		out = out[i+1:]
	}
	if out == "" {
		return "anonymous"
	}
	if c := out[0]; c < 'a' || c > 'z' {
		out = "fn." + out
	}
	return out
}

func stripBrackets(s string) string {
	var b strings.Builder
	depth := 0
	for _, r := range s {
		switch {
		case r == '[':
			depth++
		case r == ']' && depth > 0:
			depth--
		case depth == 0:
			b.WriteRune(r)
		}
	}
	return b.String()
}
