package store_test

import (
	"github.com/svckit/svc/modules/authn/bans"
	"github.com/svckit/svc/modules/authn/bearer"
	"github.com/svckit/svc/modules/authn/dpop"
	"github.com/svckit/svc/modules/authn/flood"
	"github.com/svckit/svc/modules/idempotency"
	"github.com/svckit/svc/modules/ratelimit"
	"github.com/svckit/svc/modules/responsecache"
	"github.com/svckit/svc/modules/store"
)

// Every component takes its store with an option of one name, Store, and
// every store's interface is in this package (issue 32 item 6): this
// list does not compile when one drifts.
var (
	_ func(store.Rates) ratelimit.Option               = ratelimit.Store
	_ func(store.Idempotency) idempotency.Option       = idempotency.Store
	_ func(store.Cache) responsecache.Option           = responsecache.Store
	_ func(store.Bans) bans.Option                     = bans.Store
	_ func(store.Flood) flood.Option                   = flood.Store
	_ func(store.Replay) dpop.Option                   = dpop.Store
	_ func(store.Introspections) bearer.VerifierOption = bearer.Store
)
