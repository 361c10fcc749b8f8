package oauthclient

import (
	"context"
	"net/http"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// metricRefusals counts the pattern's tokens an API refused: a 401 answer
// to a request that carried one, or a 403 whose challenge names an error
// (a bare 403 is the API's own business, not the token's). Attributes:
// svc.oauthclient.pattern and error.type, the challenge's error code when
// it is one of [refusalCodes], "other" for any other code and "none" for a
// challenge without one, so an API cannot grow the series.
const metricRefusals = "svc.oauthclient.refusals"

// refusalCodes are the error codes of RFC 6750 §3.1 and RFC 9449 §7.1,
// the values error.type takes on metricRefusals besides other and none.
var refusalCodes = map[string]bool{
	"invalid_request":    true,
	"invalid_token":      true,
	"insufficient_scope": true,
	"invalid_dpop_proof": true,
	"use_dpop_nonce":     true,
}

// countRefusal records resp when an API refused the token the request
// carried. Refusals are rare, so the instrument is looked up from the
// global provider each time, as fetches do; every other answer costs one
// comparison.
func (p *Pattern) countRefusal(ctx context.Context, resp *http.Response, scheme string) {
	if resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden {
		return
	}
	code := challengeError(resp.Header, scheme)
	switch {
	case code == "" && resp.StatusCode == http.StatusForbidden:
		return
	case code == "":
		code = "none"
	case !refusalCodes[code]:
		code = "other"
	}
	meter := otel.GetMeterProvider().Meter(instrumentationScope)
	if n, err := meter.Int64Counter(metricRefusals, metric.WithDescription("Tokens an API refused"), metric.WithUnit("{refusal}")); err == nil {
		n.Add(ctx, 1, metric.WithAttributes(attribute.String(attrPattern, p.name), attribute.String(attrError, code)))
	}
}
