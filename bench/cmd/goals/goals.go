package main

// goal is one line of bench/README's goals: a benchmark's metric (or its
// ratio to another benchmark's, run by run) against a limit.
type goal struct {
	path   string  // what is measured, as printed
	pkg    string  // the bench package, relative to bench/
	bench  string  // the -test.bench pattern of the run that measures it
	name   string  // the result's benchmark name, without "Benchmark" and -GOMAXPROCS
	metric string  // the unit the value is reported under
	per    string  // when set: metric of name ÷ metric of per, run by run (not paired in one loop)
	cmp    string  // "<", "≤" or "≥"
	limit  float64 // the goal
	redis  bool    // needs redis-server on PATH
}

// goals, in bench/README's order. Ratios are read on the benchmark
// thread's CPU time (the -cpu metrics of bench/internal/pair) wherever the
// README reads them so, because on a shared box wall time carries the
// other load; "the same" in the README is taken as within 5 %.
var goals = []goal{
	// ## Error bodies: svc ≤ 1.5× the floor, each case.
	{path: "error body RFC 9457 429 ÷ floor", pkg: "errors", bench: "RenderWritePaired", name: "RenderWritePaired/rfc9457/rate-limit", metric: "svc/floor-cpu", cmp: "≤", limit: 1.5},
	{path: "error body RFC 9457 422 ÷ floor", pkg: "errors", bench: "RenderWritePaired", name: "RenderWritePaired/rfc9457/validation", metric: "svc/floor-cpu", cmp: "≤", limit: 1.5},
	{path: "error body TMF630 429 ÷ floor", pkg: "errors", bench: "RenderWritePaired", name: "RenderWritePaired/tmf630/rate-limit", metric: "svc/floor-cpu", cmp: "≤", limit: 1.5},
	{path: "error body TMF630 422 ÷ floor", pkg: "errors", bench: "RenderWritePaired", name: "RenderWritePaired/tmf630/validation", metric: "svc/floor-cpu", cmp: "≤", limit: 1.5},

	// ## Authentication gate: cache hit < 1.2× bare chi + 1 µs (svc/goal-cpu
	// is svc ÷ (1.2 bare + 1000 ns)).
	{path: "gate cache hit ÷ (1.2× bare chi + 1 µs)", pkg: "gate", bench: "GatePaired/cache-hit", name: "GatePaired/cache-hit", metric: "svc/goal-cpu", cmp: "≤", limit: 1.0},
	// Issue 36: the gate's cache hit adds at most 0.5 µs to bare chi.
	{path: "gate cache hit − bare chi (CPU ns)", pkg: "gate", bench: "GatePaired/cache-hit", name: "GatePaired/cache-hit", metric: "over-bare-cpu-ns", cmp: "≤", limit: 500},
	// ### End to end: a valid cached token keeps ≥ 0.9× a health check's
	// throughput (wall: the server runs on other goroutines).
	{path: "end to end, cached token ÷ /livez (wall)", pkg: "e2e", bench: "EndToEndPaired", name: "EndToEndPaired", metric: "me/livez", cmp: "≤", limit: 1.11},
	// ### Many callers: one/many ≥ 0.8.
	{path: "gate 10,000 callers: one ÷ many", pkg: "gate", bench: "GateLoad", name: "GateLoad", metric: "one/many-cpu", cmp: "≥", limit: 0.8},

	// ## Request telemetry around the gate.
	{path: "telemetry all on ÷ otelhttp + zap", pkg: "gate", bench: "TelemetryPaired", name: "TelemetryPaired/all-on", metric: "svc/peer-cpu", cmp: "≤", limit: 1.0},
	{path: "telemetry all off ÷ gate alone", pkg: "gate", bench: "TelemetryPaired", name: "TelemetryPaired/all-off", metric: "off/gate-cpu", cmp: "≤", limit: 1.01},
	{path: "telemetry request IDs only ÷ gate alone", pkg: "gate", bench: "TelemetryPaired", name: "TelemetryPaired/ids-only", metric: "ids/gate-cpu", cmp: "≤", limit: 1.1},
	// **authn.NewChiRouter**: goal 1.00 (the same).
	{path: "authn.NewChiRouter ÷ chi.NewRouter", pkg: "gate", bench: "TelemetryPaired", name: "TelemetryPaired/NewChiRouter", metric: "checked/chi-cpu", cmp: "≤", limit: 1.05},

	// ## Fresh ES256 verification: ≤ 1.1× raw.
	{path: "fresh ES256 verification ÷ raw ecdsa", pkg: "authn", bench: "VerifyES256PairedCPU/vs-raw", name: "VerifyES256PairedCPU/vs-raw", metric: "svc/raw-cpu", cmp: "≤", limit: 1.1},
	// ### Several issuers: ten ≤ 1.1× one, cached and fresh.
	{path: "ten issuers ÷ one, cached", pkg: "authn", bench: "IssuersPaired", name: "IssuersPaired/cached", metric: "ten/one-cpu", cmp: "≤", limit: 1.1},
	{path: "ten issuers ÷ one, fresh", pkg: "authn", bench: "IssuersPaired", name: "IssuersPaired/fresh", metric: "ten/one-cpu", cmp: "≤", limit: 1.1},
	// ### Opaque tokens: cached ≤ 1.2× a cached JWT (CPU); cold ≤ 1.1× a
	// raw round trip (wall: the request runs on another goroutine); one
	// request for 1,000 callers.
	{path: "opaque token cached ÷ JWT cached", pkg: "authn", bench: "IntrospectCachedPaired", name: "IntrospectCachedPaired", metric: "opaque/jwt-cpu", cmp: "≤", limit: 1.2},
	{path: "introspection cold ÷ raw round trip (wall)", pkg: "authn", bench: "IntrospectColdPaired", name: "IntrospectColdPaired", metric: "svc/raw", cmp: "≤", limit: 1.1},
	{path: "introspection, 1,000 callers: requests/token", pkg: "authn", bench: "IntrospectThousandCallers", name: "IntrospectThousandCallers", metric: "requests/token", cmp: "≤", limit: 1},

	// ## Forged tokens: ≤ 10× a fresh ES256 verification with the defaults
	// (an app that opts into ES512 pays more: the README says so).
	{path: "forged ES256, 4 P-256 keys ÷ fresh", pkg: "authn", bench: forgedDefaults, name: "ForgedTokenCost/ES256-kidless-4xP256", metric: "forged/fresh-cpu", cmp: "≤", limit: 10},
	{path: "forged ES384, 4 P-384 keys ÷ fresh", pkg: "authn", bench: forgedDefaults, name: "ForgedTokenCost/ES384-kidless-4xP384", metric: "forged/fresh-cpu", cmp: "≤", limit: 10},
	{path: "forged ES512, default algorithms ÷ fresh", pkg: "authn", bench: forgedDefaults, name: "ForgedTokenCost/ES512-default-4xP521", metric: "forged/fresh-cpu", cmp: "≤", limit: 10},
	{path: "forged RS256, 4 RSA-2048 keys ÷ fresh", pkg: "authn", bench: forgedDefaults, name: "ForgedTokenCost/RS256-kidless-4xRSA2048", metric: "forged/fresh-cpu", cmp: "≤", limit: 10},
	{path: "forged PS512, 4 RSA-4096 keys ÷ fresh", pkg: "authn", bench: forgedDefaults, name: "ForgedTokenCost/PS512-kidless-4xRSA4096", metric: "forged/fresh-cpu", cmp: "≤", limit: 10},
	{path: "forged RS512, 4 RSA-4096 keys ÷ fresh", pkg: "authn", bench: forgedDefaults, name: "ForgedTokenCost/RS512-kidless-4xRSA4096", metric: "forged/fresh-cpu", cmp: "≤", limit: 10},
	{path: "forged EdDSA, 4 Ed25519 keys ÷ fresh", pkg: "authn", bench: forgedDefaults, name: "ForgedTokenCost/EdDSA-kidless-4xEd25519", metric: "forged/fresh-cpu", cmp: "≤", limit: 10},

	// ## Refusals: a banned caller's 429 < 0.2× a fresh ES256 verification
	// (two benchmarks, not paired: ns/op of each run).
	{path: "banned 429 ÷ fresh ES256 accepted", pkg: "bans", bench: "Refusal/(fresh|banned)", name: "Refusal/banned-429", per: "Refusal/fresh-ES256-accepted", metric: "ns/op", cmp: "<", limit: 0.2},
	// ### Bans on Redis: within 5 % of the in-memory store.
	{path: "bans in Redis ÷ in memory, unbanned caller", pkg: "redisbans", bench: "UnbannedCallerPaired", name: "UnbannedCallerPaired", metric: "redis/memory-cpu", cmp: "≤", limit: 1.05, redis: true},

	// ## Metrics: active ≤ 1.2× hand-written; inactive < 20 ns.
	{path: "metrics active, success ÷ hand-written", pkg: "metrics", bench: "MeasurePaired", name: "MeasurePaired/success", metric: "svc/hand-cpu", cmp: "≤", limit: 1.2},
	{path: "metrics active, error ÷ hand-written", pkg: "metrics", bench: "MeasurePaired", name: "MeasurePaired/error", metric: "svc/hand-cpu", cmp: "≤", limit: 1.2},
	{path: "metrics active, in-flight ÷ hand-written", pkg: "metrics", bench: "MeasurePaired", name: "MeasurePaired/success-inflight", metric: "svc/hand-cpu", cmp: "≤", limit: 1.2},
	{path: "metrics inactive, ns", pkg: "metrics", bench: "MeasurePaired", name: "MeasurePaired/inactive", metric: "svc-cpu-ns/op", cmp: "<", limit: 20},

	// ## Tracing: inactive costs what the no-op tracer costs (after an app
	// closed: the first row is OpenTelemetry's own default); active ≤ 1.1×
	// the SDK tracer.
	{path: "tracing inactive after close ÷ no-op tracer", pkg: "tracing", bench: "SpanPaired", name: "SpanPaired/inactive-after-close", metric: "global/noop-cpu", cmp: "≤", limit: 1.05},
	{path: "tracing active ÷ SDK tracer", pkg: "tracing", bench: "SpanPaired", name: "SpanPaired/active", metric: "global/sdk-cpu", cmp: "≤", limit: 1.1},

	// ## Outbound tokens: cache hit < 100 ns; never slower than x/oauth2
	// (separate benchmarks: ns/op of each run).
	{path: "outbound cached token, ns", pkg: "oauthclient", bench: "CachedToken$", name: "CachedToken/svc", metric: "ns/op", cmp: "<", limit: 100},
	{path: "outbound cached token ÷ x/oauth2", pkg: "oauthclient", bench: "CachedToken$", name: "CachedToken/svc", per: "CachedToken/x-oauth2", metric: "ns/op", cmp: "≤", limit: 1},
	{path: "outbound round trip, stub ÷ x/oauth2", pkg: "oauthclient", bench: "TransportRoundTrip", name: "TransportRoundTrip/stub/svc", per: "TransportRoundTrip/stub/x-oauth2", metric: "ns/op", cmp: "≤", limit: 1},
	{path: "outbound round trip, loopback ÷ x/oauth2", pkg: "oauthclient", bench: "TransportRoundTrip", name: "TransportRoundTrip/loopback/svc", per: "TransportRoundTrip/loopback/x-oauth2", metric: "ns/op", cmp: "≤", limit: 1},
	// ### Outbound telemetry: with the OpenTelemetry SDK installed, ≤ 1.0×
	// otelhttp's client transport around x/oauth2's.
	{path: "outbound with the SDK ÷ otelhttp + x/oauth2", pkg: "oauthclient", bench: "OutboundTelemetryPaired/peer", name: "OutboundTelemetryPaired/peer", metric: "svc/peer-cpu", cmp: "≤", limit: 1.0},
	// ### Resilient transport: ≤ 1.05× bare http.Transport. (The full
	// outage's bound, 1 + the retry budget, is checked by
	// BenchmarkResilientFullOutage itself and by a test.)
	{path: "resilient transport ÷ bare http.Transport", pkg: "oauthclient", bench: "ResilientLoopbackPaired/resilient", name: "ResilientLoopbackPaired/resilient", metric: "resilient/bare-cpu", cmp: "≤", limit: 1.05},

	// ## Behind the gate: rate-limit admit ≤ 0.45× httprate; a response-cache
	// hit ≤ 1.5× bare chi.
	{path: "rate-limit admit ÷ httprate", pkg: "ratelimit", bench: "AdmittedPaired", name: "AdmittedPaired", metric: "svc/httprate-cpu", cmp: "≤", limit: 0.45},
	{path: "response-cache hit ÷ bare chi", pkg: "behind", bench: "CacheHitPaired", name: "CacheHitPaired", metric: "hit/chi-cpu", cmp: "≤", limit: 1.5},

	// ## DPoP proofs: ≤ 1.15× the floor; the Redis jti check ≤ 1.3× a PING.
	{path: "DPoP request ÷ floor", pkg: "authn", bench: "DPoPPaired", name: "DPoPPaired", metric: "dpop/floor-cpu", cmp: "≤", limit: 1.15},
	{path: "DPoP jti in Redis ÷ PING", pkg: "redis", bench: "DPoPReplayVsPingPaired", name: "DPoPReplayVsPingPaired", metric: "jti/ping-cpu", cmp: "≤", limit: 1.3, redis: true},

	// ## Redis stores: the check ≤ 1.3× a PING and ≤ 1.0× redis_rate, each
	// script path.
	{path: "Redis rate limit 1ms ÷ PING", pkg: "redis", bench: "RateLimitVsPingPaired", name: "RateLimitVsPingPaired/interval=1ms", metric: "svc/ping-cpu", cmp: "≤", limit: 1.3, redis: true},
	{path: "Redis rate limit 333.3ms ÷ PING", pkg: "redis", bench: "RateLimitVsPingPaired", name: "RateLimitVsPingPaired/interval=333.3ms", metric: "svc/ping-cpu", cmp: "≤", limit: 1.3, redis: true},
	{path: "Redis rate limit 200µs ÷ PING", pkg: "redis", bench: "RateLimitVsPingPaired", name: "RateLimitVsPingPaired/interval=200µs", metric: "svc/ping-cpu", cmp: "≤", limit: 1.3, redis: true},
	{path: "Redis rate limit 1ms ÷ redis_rate", pkg: "redis", bench: "RateLimitVsRedisRatePaired", name: "RateLimitVsRedisRatePaired/interval=1ms", metric: "svc/redis_rate-cpu", cmp: "≤", limit: 1.0, redis: true},
	{path: "Redis rate limit 333.3ms ÷ redis_rate", pkg: "redis", bench: "RateLimitVsRedisRatePaired", name: "RateLimitVsRedisRatePaired/interval=333.3ms", metric: "svc/redis_rate-cpu", cmp: "≤", limit: 1.0, redis: true},
	{path: "Redis rate limit 200µs ÷ redis_rate", pkg: "redis", bench: "RateLimitVsRedisRatePaired", name: "RateLimitVsRedisRatePaired/interval=200µs", metric: "svc/redis_rate-cpu", cmp: "≤", limit: 1.0, redis: true},
	// **On a Sentinel set and a Cluster**: Sentinel the same as one Redis
	// (÷ the same check on a one-Redis client); a Cluster ≤ 1.3× a PING
	// (met in CPU; the README reads the replicas' share in wall time).
	{path: "Sentinel ÷ one-Redis client, same primary", pkg: "redis", bench: "RateLimitTopologiesPaired", name: "RateLimitTopologiesPaired/sentinel/svc-vs-direct", metric: "svc/direct-cpu", cmp: "≤", limit: 1.05, redis: true},
	{path: "Cluster ÷ PING to the key's primary", pkg: "redis", bench: "RateLimitTopologiesPaired", name: "RateLimitTopologiesPaired/cluster/svc-vs-ping", metric: "svc/ping-cpu", cmp: "≤", limit: 1.3, redis: true},
	{path: "Cluster, no replicas ÷ PING", pkg: "redis", bench: "RateLimitTopologiesPaired", name: "RateLimitTopologiesPaired/cluster-no-replicas/svc-vs-ping", metric: "svc/ping-cpu", cmp: "≤", limit: 1.3, redis: true},
}

// forgedDefaults runs the forged-token cases an app meets with the default
// algorithms (the two ES512 opt-in cases are left out).
const forgedDefaults = "ForgedTokenCost/^(ES256|ES384|ES512-default|RS256|PS512|RS512|EdDSA)"
