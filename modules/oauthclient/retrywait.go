package oauthclient

import (
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// retryWait is how long to wait before the retry numbered n (1 for the
// first): what the server asked for (Retry-After, else the reset of an
// exhausted RateLimit quota), else a random wait below Backoff × 2^(n-1)
// (full jitter), capped at MaxWait. asked reports a server's wait; one
// longer than MaxWait is returned as it is, for the caller to give up.
func (r *Resilience) retryWait(c *Client, resp *http.Response, n int) (wait time.Duration, asked bool) {
	if resp != nil {
		if d, ok := c.retryAfter(resp.Header.Get("Retry-After"), c.clock.Now()); ok {
			return d, true
		}
		if d, ok := rateLimitReset(resp.Header.Values("Ratelimit")); ok {
			return d, true
		}
	}
	ceiling := r.MaxWait
	if shift := n - 1; shift < 30 && r.Backoff<<shift < r.MaxWait {
		ceiling = r.Backoff << shift
	}
	return time.Duration(rand.Int64N(int64(ceiling) + 1)), false
}

// rateLimitReset reads the RateLimit field of
// draft-ietf-httpapi-ratelimit-headers (a structured list of quota
// policies: "name";r=remaining;t=seconds-until-reset) and returns the
// longest t of the quotas with no units left (r=0). It is lenient: an
// item it cannot read is skipped.
func rateLimitReset(values []string) (time.Duration, bool) {
	var longest time.Duration
	found := false
	for _, v := range values {
		for _, item := range splitOutsideQuotes(v, ',') {
			params := splitOutsideQuotes(item, ';')
			remaining, reset := -1, -1
			for _, p := range params[1:] {
				name, val, ok := strings.Cut(strings.TrimSpace(p), "=")
				if !ok {
					continue
				}
				n, err := strconv.Atoi(strings.TrimSpace(val))
				if err != nil || n < 0 {
					continue
				}
				switch name {
				case "r":
					remaining = n
				case "t":
					reset = n
				}
			}
			if remaining == 0 && reset >= 0 {
				found = true
				longest = max(longest, time.Duration(min(reset, int(maxRetryAfter/time.Second)))*time.Second)
			}
		}
	}
	return longest, found
}

// splitOutsideQuotes splits s at sep, except inside a quoted string.
func splitOutsideQuotes(s string, sep byte) []string {
	var out []string
	quoted, start := false, 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' && quoted:
			i++
		case c == '"':
			quoted = !quoted
		case c == sep && !quoted:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}
