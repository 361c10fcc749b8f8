package fxsvc

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"

	"go.uber.org/dig"
)

// A component that provides a value to the graph cannot meet its singleton
// check: fx refuses the second provide first. Its constructor is named
// onlyOne<Thing>PerApp so that fx's error names the rule; explain turns
// that error into one sentence.
var duplicateProvide = regexp.MustCompile(`already provided by "[^"]*"\.onlyOne(\w+)PerApp`)

// explain is the sentence for a duplicate registration. Any other error a
// constructor returned reaches the user as the
// constructor wrote it: dig's chain ("could not build arguments for
// function ... received non-nil error from function ...") names internals
// the user never wrote and hides the variable to fix at the end of a long
// line.
func explain(err error) string {
	m := duplicateProvide.FindStringSubmatch(err.Error())
	if m == nil {
		return dig.RootCause(err).Error()
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
