package fxsvc

import (
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strings"

	"github.com/caarlos0/env/v11"
	"go.uber.org/fx"
	"go.uber.org/zap"
)

// knownEnvGroup collects the SVC_ variables the app's components read.
const knownEnvGroup = "svc.env.known"

// knownEnv is one component's list of the variables it reads.
type knownEnv []string

// kitEnv are the variables Run and Check read themselves, SVC_ENV_LOAD,
// which every OTLP exporter reads, and the trusted proxies, which every part
// that names a caller reads (a typo of it would leave the caller unnamed).
var kitEnv = knownEnv{shutdownTimeoutVar, logLevelVar, logFormatVar, "SVC_ENV_LOAD", trustedProxiesVar}

// KnownVariables declares SVC_ variables the app reads itself, so that the
// start-up warning about misspelt variables (see [Main]) neither takes them
// for a typo nor misses a typo of theirs:
//
//	fxsvc.KnownVariables("SVC_ORDERS_LIMIT")
//
// It refuses nothing; names not starting with SVC_ are simply never
// compared.
func KnownVariables(names ...string) fx.Option {
	return fx.Supply(fx.Annotated{Group: knownEnvGroup, Target: knownEnv(names)})
}

// knownEnvOf lists the variables of the env-tagged struct v under prefix.
func knownEnvOf(v any, prefix string) knownEnv {
	params, err := env.GetFieldParamsWithOptions(v, env.Options{Prefix: prefix})
	if err != nil {
		return nil // only a malformed tag fails, which the tests would catch
	}
	names := make(knownEnv, 0, len(params))
	for _, p := range params {
		names = append(names, p.Key)
	}
	return names
}

type knownEnvIn struct {
	fx.In
	Known []knownEnv `group:"svc.env.known"`
}

// misspelt is a set SVC_ variable no component reads and the known one
// nearest to it.
type misspelt struct{ name, nearest string }

// findMisspeltEnv records in found every set SVC_ variable that no
// component reads but that is close to one that is: a typo would
// otherwise be ignored silently. It needs nothing built, not even the
// logger, so that it runs before the settings check and its findings are
// shown even when the build then fails (often for the setting the typo
// left unset). A variable far from every known one may be the app's own
// or another program's, and is left alone.
func findMisspeltEnv(found *[]misspelt) fx.Option {
	return fx.Invoke(func(in knownEnvIn) { findMisspeltIn(in, found) })
}

// findMisspeltIn records in found the misspelt variables of the
// environment, against the variables in declares known.
func findMisspeltIn(in knownEnvIn, found *[]misspelt) {
	known := map[string]bool{}
	for _, names := range append(in.Known, kitEnv) {
		for _, n := range names {
			known[n] = true
		}
	}
	*found = misspeltEnv(os.Environ(), known)
}

// misspeltMessage is the warning for each misspelt variable.
const misspeltMessage = "svc: unknown variable ignored; did you mean the one named?"

// logMisspelt writes one warning per misspelt variable, with its name and
// the nearest known one, never its value.
func logMisspelt(log *zap.Logger, found []misspelt) {
	for _, m := range found {
		log.Warn(misspeltMessage, zap.String("variable", m.name), zap.String("did_you_mean", m.nearest))
	}
}

// printMisspelt writes the same warnings as plain lines beside a failed
// build's report, which has no logger to go through.
func printMisspelt(w io.Writer, found []misspelt) {
	for _, m := range found {
		fmt.Fprintf(w, "svc: warning: %s is not a variable this app reads; did you mean %s?\n", m.name, m.nearest)
	}
}

// maxTypoDistance is the largest edit distance read as a typo: a letter
// dropped, doubled, swapped or mistyped, twice at most.
const maxTypoDistance = 2

// misspeltEnv returns, sorted, each SVC_ variable of environ (KEY=VALUE
// entries) that is set, not known, and near a known one (see nearestEnv),
// with the nearest. An empty value reads as unset everywhere, so its name
// cannot mislead.
func misspeltEnv(environ []string, known map[string]bool) []misspelt {
	names := make([]string, 0, len(known))
	for n := range known {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []misspelt
	for _, kv := range environ {
		name, value, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, "SVC_") || known[name] || value == "" {
			continue
		}
		if best := nearestEnv(name, names); best != "" {
			out = append(out, misspelt{name, best})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// nearestEnv is the known variable (of names, sorted) that name, set and
// unknown, most likely meant, "" when none: the nearest within
// maxTypoDistance (the first in order among equals); else, when name is
// the stem of a group of known ones (SVC_HTTP_TLS for SVC_HTTP_TLS_…), the
// group as "SVC_HTTP_TLS_*"; else, when name is in the namespace of a
// component (SVC_HTTP_…, the first two words), the nearest of that
// namespace whatever the distance, since svc owns those names. Any other
// name may be the app's own or another program's, and is left alone.
func nearestEnv(name string, names []string) string {
	best, bestD := "", maxTypoDistance+1
	for _, n := range names {
		if d := editDistance(name, n, bestD); d < bestD {
			best, bestD = n, d
		}
	}
	if best != "" {
		return best
	}
	for _, n := range names {
		if strings.HasPrefix(n, name+"_") {
			return name + "_*"
		}
	}
	space := envNamespace(name)
	if space == "" {
		return ""
	}
	bestD = math.MaxInt
	for _, n := range names {
		if envNamespace(n) != space {
			continue
		}
		if d := editDistance(name, n, bestD); d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

// envNamespace is the component's part of a variable's name, "SVC_HTTP_"
// of SVC_HTTP_ADDR; "" for a name of fewer than three words.
func envNamespace(name string) string {
	rest, ok := strings.CutPrefix(name, "SVC_")
	if !ok {
		return ""
	}
	word, _, found := strings.Cut(rest, "_")
	if !found || word == "" {
		return ""
	}
	return "SVC_" + word + "_"
}

// editDistance is the Damerau-Levenshtein distance (optimal string
// alignment: a swap of two neighbours counts one) between a and b, or
// limit when it is limit or more: names far apart cost little to rule out.
func editDistance(a, b string, limit int) int {
	if d := len(a) - len(b); d >= limit || -d >= limit {
		return limit
	}
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
			rowMin = min(rowMin, cur[j])
		}
		if rowMin >= limit {
			return limit
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return min(prev[len(b)], limit)
}
