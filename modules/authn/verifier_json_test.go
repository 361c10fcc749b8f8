package authn

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
)

// The one-pass scan against encoding/json, rule by rule of RFC 8259's
// grammar: each text is a payload-shaped object, accepted exactly when
// json.Valid accepts it.
func TestSplitMembersGrammar(t *testing.T) {
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
		_, err := splitMembers([]byte(text), nil)
		if want := json.Valid([]byte(text)); (err == nil) != want {
			t.Errorf("%s: err %v, json.Valid %v", text, err, want)
		}
	}
	for _, text := range []string{``, ` `, `{`, `}`, `{}}`, `{} {}`, `{}x`, `{},`, ` { } `, `{"a":1}` + "\n", `[]`, `1`, `"x"`, `null`} {
		_, err := splitMembers([]byte(text), nil)
		trimmed := strings.TrimLeft(text, " \t\r\n")
		want := json.Valid([]byte(text)) && strings.HasPrefix(trimmed, "{")
		if (err == nil) != want {
			t.Errorf("%q: err %v, want accepted %v", text, err, want)
		}
	}
}

// encoding/json refuses a text nested deeper than 10000; so does the scan,
// at the same depth, for arrays and objects.
func TestSplitMembersDepthLimitIsEncodingJSONs(t *testing.T) {
	for _, depth := range []int{maxDepth - 1, maxDepth, maxDepth + 1} {
		inner := depth - 1 // the top-level object is one level
		arrays := `{"a":` + strings.Repeat("[", inner) + strings.Repeat("]", inner) + `}`
		objects := strings.Repeat(`{"a":`, depth) + `1` + strings.Repeat(`}`, depth)
		for name, text := range map[string]string{"arrays": arrays, "objects": objects} {
			_, err := splitMembers([]byte(text), nil)
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

// The whole-seconds fast path reads the same time ParseFloat does, and
// leaves everything else to it.
func TestNumericDateWholeSeconds(t *testing.T) {
	for _, v := range []string{"0", "1", "1700000000", "253402300799", "253402300800", "999999999999", "1000000000000",
		"1700000000.5", "1.7e9", "-0", "-1", "12345678901234567890"} {
		got, err := numericDate(json.RawMessage(v))
		var f float64
		if jerr := json.Unmarshal([]byte(v), &f); jerr != nil {
			t.Fatal(jerr)
		}
		switch {
		case f < 0 || f > maxNumericDate:
			if err == nil {
				t.Errorf("%s: read %v, want a refusal", v, got)
			}
		case err != nil:
			t.Errorf("%s: %v", v, err)
		case got.Unix() != int64(f) || got.Location().String() != "UTC":
			t.Errorf("%s: read %v", v, got)
		}
	}
}
