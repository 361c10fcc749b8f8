package main

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// printTable writes rows as "path | ratio | goal | holds", columns padded
// to their widest cell (counted in runes: the paths hold ÷ and µ).
func printTable(w io.Writer, rows [][4]string) {
	head := [4]string{"path", "ratio: median (min–max) metric", "goal", "holds"}
	all := append([][4]string{head}, rows...)
	var width [4]int
	for _, r := range all {
		for i, c := range r {
			width[i] = max(width[i], utf8.RuneCountInString(c))
		}
	}
	for _, r := range all {
		var b strings.Builder
		for i, c := range r {
			if i > 0 {
				b.WriteString(" | ")
			}
			b.WriteString(c)
			if i < len(r)-1 {
				b.WriteString(strings.Repeat(" ", width[i]-utf8.RuneCountInString(c)))
			}
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
}
