package dpop_test

import (
	"errors"
	"testing"
	"time"

	"github.com/svckit/svc/modules/authn/dpop"
)

// FuzzVerify feeds the proof reader any header value: it never panics,
// refuses with a Reason of the fixed set, and accepts only a proof that
// verifies again as a replay.
func FuzzVerify(f *testing.F) {
	es := newES256(f)
	const url = "https://api.example/x"
	f.Add(es.proof("GET", url, now.Unix()).String())
	f.Add("a.b.c")
	f.Add("e30.e30.")
	f.Add(`{"payload":"e30"}`)
	reasons := map[string]bool{}
	for _, r := range []string{dpop.ReasonMissing, dpop.ReasonMultiple, dpop.ReasonOversized, dpop.ReasonMalformed,
		dpop.ReasonType, dpop.ReasonAlgorithm, dpop.ReasonKey, dpop.ReasonSignature, dpop.ReasonMethod, dpop.ReasonURL,
		dpop.ReasonIssuedAt, dpop.ReasonID, dpop.ReasonReplayed, dpop.ReasonTokenHash} {
		reasons[r] = true
	}
	v, err := dpop.New(dpop.Algorithms("ES256", "RS256", "PS256", "EdDSA"))
	if err != nil {
		f.Fatal(err)
	}
	dpop.SetClock(v, func() time.Time { return now })
	f.Fuzz(func(t *testing.T, proof string) {
		_, err := v.Verify(request("GET", url, proof), "")
		if err == nil {
			if _, err := v.Verify(request("GET", url, proof), ""); reasonOf(err) != dpop.ReasonReplayed {
				t.Fatalf("accepted twice: %v", err)
			}
			return
		}
		var e *dpop.Error
		if !errors.As(err, &e) || !reasons[e.Reason] {
			t.Fatalf("refusal %v", err)
		}
	})
}
