package svcerrors

import (
	"encoding/json"
	"testing"
)

// appendEscaped must agree byte for byte with encoding/json, so that the
// hand-built bodies are what a reflection encoder would have written.
func FuzzAppendEscapedMatchesEncodingJSON(f *testing.F) {
	for _, s := range []string{"", "plain", "quote\"back\\slash", "<script>&", "\x00\x01\x1f\b\f\n\r\t",
		"\u2028\u2029", "caf\xc3\xa9", "bad\xff\xfeutf8", "\xed\xa0\x80", "😀", "\x1b[31mred"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		got := appendString(nil, s)
		if string(got) != string(want) {
			t.Fatalf("appendString(%q) = %s, encoding/json = %s", s, got, want)
		}
	})
}
