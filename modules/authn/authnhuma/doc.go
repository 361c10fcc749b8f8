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
// the markers behindhuma.Use and behindhuma.Group put on them ([Notes]) as
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
// caller the operation refuses ask [Admit] first, as behindhuma's do.
//
// The caller is a typed input field: [Caller] (required), [OptionalCaller]
// (for Anonymous operations) and [Token] (the verified token, for token
// exchange); authn.PrincipalFrom(ctx) reads it in the handler too.
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
// ([SchemeOpenIDConnect] for an authn.Discover verifier, [SchemeBearer]
// otherwise) and requires it on every operation the gate covers, with the
// operation's scopes; an Anonymous operation lists it as optional beside an
// empty alternative; an excluded path names none. Each covered operation
// lists its 401, its 403 where scopes are required and its 429 when bans
// are on, in the registered error model. authn.OpenAPI(false) leaves all of
// that out. With [Errors], Huma's own error responses are republished with
// the format's media type and model (svcerrors.ProblemDetail or
// svcerrors.TMFError) and Huma's ErrorModel is dropped once nothing refers
// to it; responses the app declared itself are left alone. [Rejects]
// declares the rejections an operation's handler returns.
//
// Huma writes OpenAPI 3.1; the tests validate both that and the 3.0.3
// document Huma downgrades it to (served at /openapi-3.0.json) with
// kin-openapi.
package authnhuma
