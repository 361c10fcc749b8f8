package fxsvc

import (
	"os"
	"strings"
	"testing"

	"github.com/svckit/svc/internal/oauthenv"
	"github.com/svckit/svc/modules/metrics"
	"github.com/svckit/svc/modules/redisstore"
	"github.com/svckit/svc/modules/tracing"
)

// docs/configuration.md promises every SVC_ variable svc reads in one
// table: each variable a component declares for the misspelt-variable
// warning must have its row there, and the table names no variable that
// nothing reads.
func TestTheConfigurationPageListsEveryVariable(t *testing.T) {
	page, err := os.ReadFile("../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	read := map[string]bool{}
	for _, names := range [][]string{
		kitEnv,
		knownEnvOf(&authnEnv{}, ""),
		knownEnvOf(&dpopEnv{}, ""),
		knownEnvOf(&serveConfig{}, ""),
		knownEnvOf(&telemetryEnv{}, ""),
		knownEnvOf(&metrics.Config{}, "SVC_METRICS_"),
		knownEnvOf(&tracing.Config{}, "SVC_TRACING_"),
		knownEnvOf(&oauthenv.Client{}, oauthenv.ClientPrefix),
		knownEnvOf(&oauthenv.Pattern{}, oauthenv.PatternPrefix("name", false)),
		knownEnvOf(&oauthenv.Pattern{}, oauthenv.PatternPrefix("name", true)),
		knownEnvOf(&oauthenv.Exchange{}, oauthenv.PatternPrefix("name", true)),
		redisstore.EnvVariables(),
	} {
		for _, n := range names {
			read[strings.Replace(n, "_NAME_", "_<NAME>_", 1)] = true
		}
	}
	if len(read) < 40 {
		t.Fatalf("only %d variables collected: a component's list came back empty", len(read))
	}
	rows := map[string]bool{}
	for _, line := range strings.Split(string(page), "\n") {
		if name, ok := strings.CutPrefix(line, "| `SVC_"); ok {
			rows["SVC_"+name[:strings.Index(name, "`")]] = true
		}
	}
	for n := range read {
		if !rows[n] {
			t.Errorf("docs/configuration.md has no row for %s", n)
		}
	}
	for n := range rows {
		if !read[n] {
			t.Errorf("docs/configuration.md lists %s, which no component reads", n)
		}
	}
}
