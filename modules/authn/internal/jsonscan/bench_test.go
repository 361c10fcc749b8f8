package jsonscan

import (
	"encoding/json"
	"testing"
	"time"
)

// payload is a typical access token's claims (RFC 9068 with scopes).
var payload = []byte(`{"iss":"https://issuer.example","sub":"user-1","aud":"https://api.example","exp":1893553445,` +
	`"iat":1893549785,"nbf":1893549785,"jti":"9f1c2d3e-4b5a-6978-8a9b-0c1d2e3f4a5b","client_id":"web-app",` +
	`"scope":"orders:read orders:write profile"}`)

// readMembers is what the verifier does with a payload: its members, by
// name.
func readMembers(tb testing.TB) {
	var buf [16]Member
	ms, err := Members(payload, buf[:0], nil)
	if err != nil || len(ms) != 9 {
		tb.Fatal(err)
	}
	obj := make(map[string][]byte, len(ms))
	for _, m := range ms {
		obj[m.Name] = m.Value
	}
}

// readMembersV1 is the nearest job for encoding/json: the top-level
// members as raw values. It keeps the last of duplicate names where the
// verifier must refuse them, so it does less than readMembers.
func readMembersV1(tb testing.TB) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(payload, &obj); err != nil || len(obj) != 9 {
		tb.Fatal(err)
	}
}

// BenchmarkMembersPaired alternates readMembers with another reader in
// batches, so that a loaded machine slows both alike, and reports each
// one's ns/op and their ratio.
//
//	go test -run '^$' -bench MembersPaired -count 5 ./modules/authn/internal/jsonscan
//	GOEXPERIMENT=jsonv2 go test -run '^$' -bench MembersPaired -count 5 ./modules/authn/internal/jsonscan
func BenchmarkMembersPaired(b *testing.B) {
	for name, other := range others {
		b.Run(name, func(b *testing.B) { paired(b, readMembers, other) })
	}
}

var others = map[string]func(testing.TB){"encoding-json": readMembersV1}

func paired(b *testing.B, ours, theirs func(testing.TB)) {
	const batch = 32
	var a, o time.Duration
	n := 0
	for b.Loop() {
		start := time.Now()
		for range batch {
			ours(b)
		}
		mid := time.Now()
		for range batch {
			theirs(b)
		}
		a, o = a+mid.Sub(start), o+time.Since(mid)
		n += batch
	}
	b.ReportMetric(float64(a.Nanoseconds())/float64(n), "jsonscan-ns/op")
	b.ReportMetric(float64(o.Nanoseconds())/float64(n), "other-ns/op")
	b.ReportMetric(float64(o)/float64(a), "other/jsonscan")
}
