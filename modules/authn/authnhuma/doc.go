// Package authnhuma puts Huma v2 APIs behind the authentication gate of
// package authn, renders Huma's own errors in the app's registered error
// format (package svcerrors), and keeps the API document in line with both.
// It is a package of its own so that Huma is a dependency only of the apps
// that use it.
//
// Build the API with [NewChi] (instead of humachi.New) or [NewGo] (instead
// of humago.New), and guard operations with [Anonymous] and [Require]:
//
//	api := authnhuma.NewChi(r, huma.DefaultConfig("Example", "1.0.0"),
//		authnhuma.Gate(gate), authnhuma.Errors(res), authnhuma.Prefix("/api"))
//	huma.Get(api, "/hello", hello, authnhuma.Anonymous)
//	huma.Post(api, "/items", create, authnhuma.Require("items:write"))
//	admin := huma.NewGroup(api, "/admin")
//	admin.UseSimpleModifier(authnhuma.Require("admin"))
//
// A step-up (RFC 9470) is the authn route markers themselves, given to
// [Use] (or [Group]) as on a chi route: they join the operation's guard,
// run with its scopes before Huma reads the body, and are described on its
// 401 in the API document:
//
//	huma.Post(api, "/payments", pay, authnhuma.Require("payments"),
//		authnhuma.Use(authn.RequireACR("phr"), authn.MaxAge(5*time.Minute)))
//
// Every operation not marked Anonymous needs a verified caller, as every
// route does behind the gate. The adapters wrap each operation's handler in
// the authn route markers, so the gate reads an operation's guard before
// routing, like any chi or ServeMux route: a request without a token
// reaches only Anonymous operations, an unknown URL or a method no operation
// serves gets the same 401, scopes are checked before Huma reads the body
// (an invalid body on a protected operation gets 401 or 403, never 422),
// operations registered later are gated as they land, the installer
// refuses the same set-ups as on chi (Anonymous and Require together, an
// excluded operation with scopes), and `check` lists the operations, with
// the markers [Use] and [Group] put on them ([Notes]) as
// on chi routes. A Huma
// API on a chi sub-router mounted in a larger chi router is gated operation
// by operation. Huma's own documentation routes (the API document in its
// four spellings, the docs page, the schemas) need a token unless
// [PublicDocs] makes them all anonymous or the app excludes them; a
// response's `$schema` link and the $ref links between schemas point
// inside the API, prefix included.
//
// On an API built with a bare adapter (humachi.New) the gate cannot see the
// guards before routing and fails closed: an Anonymous operation needs a
// token there; an operation's Require is still enforced, inside Huma (a
// group's is not: see [Require]). Middlewares that must not act for a
// caller the operation refuses ask [Admit] first, as [Use]'s do.
//
// The caller is a typed input field: [Caller] (required) and
// [OptionalCaller] (for Anonymous operations); authn.PrincipalFrom(ctx)
// reads it in the handler too, and authn.TokenFrom(ctx) the verified token
// (for token exchange).
//
// # Errors
//
// Importing the package replaces huma.NewErrorWithContext, which Huma keeps
// in a package variable (one hook per process, huma#352). Behind svcerrors'
// middleware, every error Huma writes takes the registered format: a
// validation failure is validation-failed with its errors entries (loc,
// msg, type; never the input), keeping Huma's status (422, or 400 for a body
// that does not parse); a rejection a handler returns (a
// *svcerrors.RateLimitExceeded, an *authn.Refusal) is rendered as such; a
// huma.ErrorXXX a handler returns keeps its status and headers with type
// about:blank and the service's own detail (a 400 or 422 carrying error
// details is validation-failed);
// any other handler error is a 500 that says nothing of it (logged by the
// format), where Huma would put err.Error() on the wire. An app's own
// handler registered with svcerrors.On still wins. Without a registered
// format Huma's own errors stay, minus that leak. The router's own 404 and
// 405 are re-shaped by svcerrors' middleware.
//
// # The API document
//
// With [Gate], the document carries the gate's security scheme
// ("openIdConnect" for an bearer.Discover verifier, "bearerAuth"
// otherwise) and requires it on every operation the gate covers, with the
// operation's scopes; an Anonymous operation lists it as optional beside an
// empty alternative; an excluded path names none. A gate that takes DPoP
// (authn.DPoP) adds the "DPoP" scheme (type http, scheme DPoP) as a
// second alternative, or as the only one where DPoP is required. Each covered operation
// lists its 401, its 403 where scopes are required and its 429 when bans
// are on, in the registered error model; its 401 says what the operation
// may answer (its step-up, and a claims challenge when the gate has a check
// hook), and its WWW-Authenticate header lists only the errors that
// operation can send. authn.OpenAPI(false) leaves all of
// that out. With [Errors], Huma's own error responses are republished with
// the format's media type and model (svcerrors.ProblemDetail or
// svcerrors.TMFError) and Huma's ErrorModel is dropped once nothing refers
// to it; responses the app declared itself are left alone. [Rejects]
// declares the rejections an operation's handler returns.
//
// Huma writes OpenAPI 3.1; the tests validate both that and the 3.0.3
// document Huma downgrades it to (served at /openapi-3.0.json) with
// kin-openapi.
//
// # The components behind the gate
//
// [Use] and [Group] put the components that run behind the
// authentication gate (ratelimit, idempotency, conditional, responsecache)
// on Huma operations and groups:
//
//	huma.Post(api, "/orders", createOrder,
//		authnhuma.Use(ratelimit.Limit("10/s", 20), idempotency.Required()))
//
//	reports := huma.NewGroup(api, "/reports")
//	authnhuma.Group(reports, ratelimit.Limit("5/s", 10))
//
// Each marker runs as a Huma middleware, after the gate admitted the
// request and before Huma reads the body, and sees the response the
// operation writes. It runs only for a caller the operation's guard
// ([Require], the group's included) admits, whatever the order of
// the options and on every adapter: a caller refused 401 or 403 spends no
// budget, claims no Idempotency-Key and is never answered from the cache.
// On an API built with [NewChi] or [NewGo] the markers' refusals
// (for idempotency: 400, 409, 413 and 422) are listed in the API document
// with the registered error model, ProblemDetail or TMFError (the spec's
// document_idempotency), with what each marker adds to the operation for
// the methods it acts on: the request headers it reads (If-None-Match,
// If-Match, Idempotency-Key) as parameters, the response headers it sets
// (ETag, RateLimit-Policy and RateLimit, Idempotent-Replayed, Age) and
// its own answers (304).
//
// An operation registered for a method and path that another operation of
// the API already has panics at registration, naming both and their
// guards: the router would serve one of them without a word. A HEAD on a
// GET operation is answered as that GET without the body, on both
// adapters, judged by the GET operation's guard.
//
// Huma operations work on humachi and humago adapters. On an API built
// with [NewChi] or [NewGo], `check` lists an operation's markers,
// its group's included, as it lists a chi route's ([Notes]): the
// same notes, at no cost to a request.
package authnhuma
