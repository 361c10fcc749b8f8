package authn

import "time"

// SetRecordClock lets tests move the security records' one-minute window.
func SetRecordClock(g *Gate, now func() time.Time) { g.records = newRecordLimiter(now) }

// Clean exposes the record value sanitiser.
var Clean = clean

// ChiRouteKey exposes how NewChiRouter tells chi patterns apart.
var ChiRouteKey = chiRouteKey
