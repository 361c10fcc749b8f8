//go:build goexperiment.jsonv2

package jsonscan

import (
	"encoding/json/jsontext"
	jsonv2 "encoding/json/v2"
	"testing"
)

// readMembersV2 is readMembersV1 with encoding/json/v2, which refuses
// duplicate names as the verifier must.
func readMembersV2(tb testing.TB) {
	var obj map[string]jsontext.Value
	if err := jsonv2.Unmarshal(payload, &obj); err != nil || len(obj) != 9 {
		tb.Fatal(err)
	}
}

func init() { others["encoding-json-v2"] = readMembersV2 }
