package fxsvc

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
)

// A component that provides a value to the graph cannot meet its singleton
// check: fx refuses the second provide first. Its constructor is named
// onlyOne<Thing>PerApp so that fx's error names the rule; explain turns
// that error into one sentence.
var duplicateProvide = regexp.MustCompile(`already provided by "[^"]*"\.onlyOne(\w+)PerApp`)

func explain(err error) string {
	m := duplicateProvide.FindStringSubmatch(err.Error())
	if m == nil {
		return err.Error()
	}
	return fmt.Sprintf("only one %s may be registered per app: remove the second registration", words(m[1]))
}

func words(camel string) string {
	var b strings.Builder
	for i, r := range camel {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte(' ')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}
