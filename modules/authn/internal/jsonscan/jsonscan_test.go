package jsonscan

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// The one-pass scan against encoding/json, rule by rule of RFC 8259's
// grammar: each text is a payload-shaped object, accepted exactly when
// json.Valid accepts it.
func TestMembersGrammar(t *testing.T) {
	values := []string{
		// numbers
		`0`, `-0`, `1`, `-1`, `10`, `1.5`, `-1.5e10`, `1E+2`, `1e-2`, `0.0`,
		`01`, `-01`, `+1`, `.5`, `1.`, `1.e2`, `1e`, `1e+`, `-`, `--1`, `0x1`, `1_0`, `NaN`, `Infinity`, `1 2`,
		// literals
		`true`, `false`, `null`, `tru`, `nul`, `True`, `truex`, `nullnull`, `true false`,
		// strings
		`""`, `"a"`, `"\"\\\/\b\f\n\r\t"`, `"\u00e9"`, `"\uD83D\uDE00"`, `"é"`, "\"\x7f\"",
		`"\x"`, `"\u12"`, `"\u12G4"`, `"\U0041"`, `"\'"`, "\"a\x00\"", "\"a\x1f\"", "\"a\tb\"", "\"a\nb\"", `"a`, `"\"`,
		// arrays and objects
		`[]`, `[ ]`, `[1,2]`, `[1,]`, `[,1]`, `[1 2]`, `[`, `]`, `[[[]]]`, `[[]`, `{}`, `{"b":[]}`, `{"b":1,}`,
		`{"b"}`, `{"b":}`, `{b:1}`, `{"b" 1}`, `{"b":1 "c":2}`, `{1:2}`, `{"b":1]`, `[1}`, `{"b":{"c":{"d":[{}]}}}`,
		// whitespace
		" 1 ", "\t1\r\n", "\v1", "\f1", "\u00a01",
	}
	for _, v := range values {
		text := `{"a":` + v + `}`
		_, err := Members([]byte(text), nil, nil)
		if want := json.Valid([]byte(text)); (err == nil) != want {
			t.Errorf("%s: err %v, json.Valid %v", text, err, want)
		}
	}
	for _, text := range []string{``, ` `, `{`, `}`, `{}}`, `{} {}`, `{}x`, `{},`, ` { } `, `{"a":1}` + "\n", `[]`, `1`, `"x"`, `null`} {
		_, err := Members([]byte(text), nil, nil)
		trimmed := strings.TrimLeft(text, " \t\r\n")
		want := json.Valid([]byte(text)) && strings.HasPrefix(trimmed, "{")
		if (err == nil) != want {
			t.Errorf("%q: err %v, want accepted %v", text, err, want)
		}
	}
}

// encoding/json refuses a text nested deeper than 10000; so does the scan,
// at the same depth, for arrays and objects.
func TestMembersDepthLimitIsEncodingJSONs(t *testing.T) {
	for _, depth := range []int{maxDepth - 1, maxDepth, maxDepth + 1} {
		inner := depth - 1 // the top-level object is one level
		arrays := `{"a":` + strings.Repeat("[", inner) + strings.Repeat("]", inner) + `}`
		objects := strings.Repeat(`{"a":`, depth) + `1` + strings.Repeat(`}`, depth)
		for name, text := range map[string]string{"arrays": arrays, "objects": objects} {
			_, err := Members([]byte(text), nil, nil)
			if want := json.Valid([]byte(text)); (err == nil) != want {
				t.Errorf("%s nested %d deep: err %v, json.Valid %v", name, depth, err, want)
			}
		}
	}
}

// skipPlain's word-at-a-time tests find the same byte as a loop over every
// byte, whatever precedes the stop (bytes just above and below each
// boundary the tests draw) and wherever in the word it sits.
func TestSkipPlainFindsTheFirstStop(t *testing.T) {
	near := []byte{0x00, 0x01, 0x1f, 0x20, 0x21, '"', 0x23, 0x5b, '\\', 0x5d, 0x7f, 0x80, 0x81, 0xa2, 0xdc, 0xff}
	rng := rand.New(rand.NewPCG(1, 2))
	buf := make([]byte, 40)
	for range 200000 {
		for i := range buf {
			if rng.IntN(4) == 0 {
				buf[i] = near[rng.IntN(len(near))]
			} else {
				buf[i] = 0x20 + byte(rng.IntN(0x60))
			}
		}
		n := rng.IntN(len(buf) + 1)
		start := rng.IntN(n + 1)
		if got, want := skipPlain(buf[:n], start), skipPlainOracle(buf[:n], start); got != want {
			t.Fatalf("skipPlain(%q, %d) = %d, want %d", buf[:n], start, got, want)
		}
	}
}

// countMembers is a test oracle for Members: it counts the top-level members of a JSON object that
// encoding/json already accepted, by counting the name separators (':')
// at depth one outside strings.
func countMembers(raw []byte) int {
	n, depth, inString := 0, 0, false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		case ':':
			if depth == 1 {
				n++
			}
		}
	}
	return n
}

func TestCountMembers(t *testing.T) {
	cases := map[string]int{
		`{}`:                          0,
		`{"a":1}`:                     1,
		`{"a":1,"b":{"c":2,"d":[3]}}`: 2,
		`{"a:b":"c:d","e":"\":"}`:     2,
		`{"a":"\\","b":1}`:            2,
		` { "a" : 1 , "b" : 2 } `:     2,
		`{"a":[{"b":1},{"c":2}]}`:     1,
	}
	for in, want := range cases {
		if got := countMembers([]byte(in)); got != want {
			t.Errorf("countMembers(%s) = %d, want %d", in, got, want)
		}
	}
}

// FuzzMembers: on any UTF-8 input, valid JSON or not, the one-pass
// scan accepts exactly what json.Valid accepts as an object; what it
// accepts it cuts into members that are each one valid JSON value, as
// many as the text has. skipPlain, the scan's eight-bytes-at-a-time step,
// stops where a byte-by-byte loop does, from every offset.
func FuzzMembers(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":1}`, ` {"a" : [1, -0.5e+3, true, null, {"b":"\u00e9\n"}]} `, `{"a":01}`, `{"a":1,}`,
		`{"a":"\x"}`, `{"a":"` + "\x01" + `"}`, `{"a":tru}`, `{"a":1}x`, `{"a" 1}`, `{"a":[1 2]}`, `{"a":{"b"}}`, `{"a":-}`, `{"a":1.}`,
		`{"a":1e}`, `{"a":"\u12G4"}`, `{"iss":"i","sub":"s","aud":["a"],"exp":1,"nbf":2,"iat":3,"jti":"j","scope":"a b","scp":["c"],"x":{}}`, `{"aaaaaaaaaaaaaaaaaaaaaa\\\"":"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"}`, `[]`, `"s"`, ``, `{`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for i := range min(len(data)+1, 64) {
			if got, want := skipPlain(data, i), skipPlainOracle(data, i); got != want {
				t.Fatalf("skipPlain(%q, %d) = %d, want %d", data, i, got, want)
			}
		}
		if !utf8.Valid(data) {
			return
		}
		members, err := Members(data, nil, nil)
		trimmed := bytes.TrimLeft(data, " \t\r\n")
		want := json.Valid(data) && len(trimmed) > 0 && trimmed[0] == '{'
		if (err == nil) != want {
			t.Fatalf("Members(%q): err %v, json.Valid object %v", data, err, want)
		}
		if err != nil {
			if err != ErrNotObject {
				t.Fatalf("Members(%q): err %v", data, err)
			}
			return
		}
		if len(members) != countMembers(data) {
			t.Fatalf("Members(%q): %d members, want %d", data, len(members), countMembers(data))
		}
		for _, m := range members {
			if !json.Valid(m.Value) || len(bytes.TrimSpace(m.Value)) != len(m.Value) {
				t.Fatalf("Members(%q): member %q = %q", data, m.Name, m.Value)
			}
			var want string
			isText := json.Unmarshal(m.Value, &want) == nil && m.Value[0] == '"'
			if m.IsText != isText || m.Text != want {
				t.Fatalf("Members(%q): member %q text %q (%v), encoding/json reads %q (%v)", data, m.Name, m.Text, m.IsText, want, isText)
			}
		}
	})
}

// skipPlainOracle is skipPlain a byte at a time.
func skipPlainOracle(raw []byte, i int) int {
	for ; i < len(raw); i++ {
		if c := raw[i]; c == '"' || c == '\\' || c < 0x20 {
			return i
		}
	}
	return i
}

// StringArray reads what encoding/json reads into []string, except that
// any element that is not a string refuses the array.
func TestStringArray(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{`[]`, []string{}},
		{` [ ] `, []string{}},
		{`["a"]`, []string{"a"}},
		{`["a","b\u0041"]`, []string{"a", "bA"}},
		{"[\n\"a\" ,\t\"b\"\r]", []string{"a", "b"}},
		{`[null]`, nil},
		{`["a",null]`, nil},
		{`["a",]`, nil},
		{`[,"a"]`, nil},
		{`["a" "b"]`, nil},
		{`["a"`, nil},
		{`["a"]x`, nil},
		{`"a"`, nil},
		{`null`, nil},
		{``, nil},
	} {
		got, ok := StringArray([]byte(c.in))
		if ok != (c.want != nil) || !slices.Equal(got, c.want) {
			t.Errorf("%q: read %q, %v; want %q", c.in, got, ok, c.want)
		}
	}
}

// A string value is unescaped into Text, as encoding/json reads it; one
// equal to a known string is that string; other values have no Text.
func TestMembersText(t *testing.T) {
	known := []string{"https://api.example"}
	ms, err := Members([]byte(`{"a":"x","b":"\u00e9\n","c":1,"d":["y"],"e":"https://api.example","f":"https:\/\/api.example","g":null}`), nil, known)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		text   string
		isText bool
	}{{"x", true}, {"é\n", true}, {"", false}, {"", false}, {known[0], true}, {known[0], true}, {"", false}}
	for i, m := range ms {
		if m.Text != want[i].text || m.IsText != want[i].isText {
			t.Errorf("member %s: text %q (%v), want %q (%v)", m.Name, m.Text, m.IsText, want[i].text, want[i].isText)
		}
	}
	raw, buf := []byte(`{"aud":"https://api.example"}`), make([]Member, 0, 1)
	if got := testing.AllocsPerRun(10, func() { _, _ = Members(raw, buf, known) }); got != 0 {
		t.Fatalf("a known value allocated %v times", got)
	}
}
