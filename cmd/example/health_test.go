package main

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/svckit/svc/fxsvc"
)

// The example serves the probes without a token, ready once the
// development issuer's keys arrived, and `check` lists them.
func TestExampleServesTheProbes(t *testing.T) {
	base := startExample(t)
	for _, p := range []string{"/livez", "/readyz"} {
		var resp *http.Response
		for range 2000 { // the keys load in the background: up to 10 s
			r, err := http.Get(base + p)
			if err != nil {
				t.Fatal(err)
			}
			resp = r
			if r.StatusCode == 200 {
				break
			}
			r.Body.Close()
			time.Sleep(5 * time.Millisecond)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || string(body) != "ok\n" {
			t.Fatalf("%s: %d %s", p, resp.StatusCode, body)
		}
	}
	var out, errOut bytes.Buffer
	if code := fxsvc.Run([]string{"check"}, &out, &errOut, options()...); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	// Compared word by word: the columns widen with the longest route.
	listed := map[string]bool{}
	for _, line := range strings.Split(out.String(), "\n") {
		listed[strings.Join(strings.Fields(line), " ")] = true
	}
	for _, line := range []string{"GET /livez excluded", "GET /readyz excluded"} {
		if !listed[line] {
			t.Errorf("check output lacks %q:\n%s", line, out.String())
		}
	}
}
